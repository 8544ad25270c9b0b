"""The user-session generator: seasonality, hour boundaries, open hours, one user per computer,
determinism, and its parameters' checks."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.calendar import DAY, HOUR, Calendar
from ckptsim.errors import ConfigError
from ckptsim.platform.hours import OpeningHours
from ckptsim.platform.usermodel import SessionLength, UserModel, generate_sessions
from ckptsim.platform.users import UserCluster, cluster_of_machine

# Four weeks of term, then four weeks of holiday, from Monday 4 January 2010.
CAL = Calendar("2010-01-04", terms=["2010-01-04..2010-01-31"])
DAYS = 56
POOL = [UserCluster("library", 60, OpeningHours.parse("24h")),
        UserCluster("lab", 30, OpeningHours.parse("mon-fri 08:00-18:00")),
        UserCluster("late", 20, OpeningHours.parse("mon-fri 10:00-22:00; sat 10:00-14:00"))]


@pytest.fixture(scope="module")
def sessions():
    return generate_sessions(POOL, days=DAYS, seed=11, calendar=CAL)


def _day_kind(login):
    day = np.floor(login / DAY).astype(int)
    return day, day % 7 >= 5, day < 28  # day 0 is a Monday; term = first four weeks


def test_one_user_per_computer(sessions):
    assert len(sessions) > 5_000
    assert len(sessions.overlapping()) == 0
    assert sessions.n_machines == 110
    assert np.all(sessions.logout >= sessions.login)
    assert np.all(np.diff(sessions.login) >= 0)


def test_sessions_lie_in_open_hours(sessions):
    cluster = cluster_of_machine(POOL)[sessions.machine]
    for c, spec in enumerate(POOL):
        mine = cluster == c
        tl = spec.hours.timeline(CAL, 0, DAYS * DAY)
        login, logout = sessions.login[mine], sessions.logout[mine]
        assert np.all(tl.open_mask(login)), spec.name
        assert np.all(logout <= tl.next_closings(login)), spec.name
        assert np.all((login >= 0) & (login < DAYS * DAY))


def test_weekdays_busier_than_weekends_and_term_than_holiday(sessions):
    day, weekend, term = _day_kind(sessions.login)
    per_day = np.bincount(day, minlength=DAYS)
    weekend_days = np.arange(DAYS) % 7 >= 5
    term_days = np.arange(DAYS) < 28
    weekday_term = per_day[~weekend_days & term_days].mean()
    weekend_term = per_day[weekend_days & term_days].mean()
    weekday_holiday = per_day[~weekend_days & ~term_days].mean()
    assert weekday_term > 2 * weekend_term
    assert weekday_term > 2 * weekday_holiday
    # Even on the 24-hour library alone (closures do not explain it).
    lib = sessions.machine < 60
    per_day_lib = np.bincount(day[lib], minlength=DAYS)
    assert per_day_lib[~weekend_days & term_days].mean() \
        > 2 * per_day_lib[weekend_days & term_days].mean()


def test_arrivals_peak_just_before_hour_boundaries_in_office_hours(sessions):
    login = sessions.login
    day, weekend, term = _day_kind(login)
    tod = login - day * DAY
    minute = np.floor((tod % HOUR) / 60).astype(int)
    # Hours ending at a boundary inside the default office hours (09:00-17:00): 08:00-16:00.
    office = term & ~weekend & (tod >= 8 * HOUR) & (tod < 16 * HOUR)
    late = minute >= 50
    # Default: half of these arrivals in the last 10 minutes, plus the uniform share of the rest.
    assert late[office].mean() > 0.45
    per_minute = np.bincount(minute[office], minlength=60)
    assert per_minute.argmax() >= 50
    assert per_minute[50:].min() > 2 * per_minute[:50].max()
    # Outside office hours (evenings, weekends, holidays) arrivals are uniform over the hour.
    assert abs(late[~office].mean() - 10 / 60) < 0.03


def test_arrival_count_matches_the_rate():
    # A flat profile on a big 24-hour cluster: no turn-aways, a known Poisson mean.
    model = UserModel(peak_rate=0.5, hourly=(1.0,) * 24, saturday=1, sunday=1, holiday=1,
                      session="fixed:value=60")
    pool = [UserCluster("big", 500, OpeningHours.parse("24h"))]
    s = generate_sessions(pool, days=7, seed=3, calendar=CAL, model=model,
                          popularity={"big": 1.0})
    expected = 0.5 * 500 * 24 * 7
    assert s.counts["turned_away"] == 0
    assert abs(len(s) - expected) < 4 * math.sqrt(expected)
    assert np.allclose(s.logout - s.login, 60, rtol=0, atol=1e-6)


def test_session_lengths_follow_the_distribution():
    pool = [UserCluster("big", 400, OpeningHours.parse("24h"))]
    s = generate_sessions(pool, days=14, seed=5, calendar=CAL)
    length = s.logout - s.login
    assert s.counts["turned_away"] == 0
    assert abs(np.median(length) / 2700 - 1) < 0.05  # lognormal median 45 min
    assert length.min() >= 60 and length.max() <= 8 * HOUR


def test_full_cluster_turns_users_away():
    model = UserModel(peak_rate=5.0, session="fixed:value=7200")
    pool = [UserCluster("tiny", 2, OpeningHours.parse("24h"))]
    s = generate_sessions(pool, days=3, seed=1, calendar=CAL, model=model)
    assert s.counts["turned_away"] > 0
    assert s.counts["arrivals"] == s.counts["sessions"] + s.counts["turned_away"]
    assert len(s.overlapping()) == 0


def test_deterministic_and_seeded(sessions):
    again = generate_sessions(POOL, days=DAYS, seed=11, calendar=CAL)
    for col in ("machine", "login", "logout"):
        assert getattr(again, col).tobytes() == getattr(sessions, col).tobytes()
    other = generate_sessions(POOL, days=DAYS, seed=12, calendar=CAL)
    assert len(other) != len(sessions) or not np.array_equal(other.login, sessions.login)


def test_clusters_draw_from_their_own_streams(sessions):
    extra = generate_sessions([*POOL, UserCluster("new", 10, OpeningHours.parse("24h"))],
                              days=DAYS, seed=11, calendar=CAL)
    old = extra.machine < 110
    assert np.array_equal(extra.login[old], sessions.login)
    assert np.array_equal(extra.machine[old], sessions.machine)


def test_session_length_does_not_move_arrivals():
    pool = [UserCluster("big", 400, OpeningHours.parse("24h"))]
    a = generate_sessions(pool, days=3, seed=2, calendar=CAL)
    b = generate_sessions(pool, days=3, seed=2, calendar=CAL,
                          model=UserModel(session="exponential:mean=600"))
    assert np.array_equal(np.sort(a.login), np.sort(b.login))
    assert not np.array_equal(a.logout - a.login, b.logout - b.login)


def test_closed_cluster_gets_no_sessions():
    pool = [UserCluster("shut", 5, OpeningHours.parse("closed"))]
    assert len(generate_sessions(pool, days=7, seed=1, calendar=CAL)) == 0


@pytest.mark.parametrize("text,kind,values", [
    ("lognormal:median=100,sigma=0.5", "lognormal", {"median": 100, "sigma": 0.5}),
    ("exponential:mean=600,max=1200", "exponential", {"mean": 600}),
    ("weibull:scale=900,shape=0.7", "weibull", {"scale": 900, "shape": 0.7}),
    ("uniform:low=60,high=120", "uniform", {"low": 60, "high": 120}),
    ("fixed:value=300,min=0", "fixed", {"value": 300}),
])
def test_session_length_forms(text, kind, values):
    d = SessionLength.parse(text)
    assert d.kind == kind and dict(d.params) == values
    x = d.draw(np.random.default_rng(0), 2000)
    assert np.all((x >= d.low) & (x <= d.high))


@pytest.mark.parametrize("text,key", [("gamma:shape=2", "session"),
                                      ("lognormal:median=x,sigma=1", "session.median"),
                                      ("lognormal:median=100", "session.sigma"),
                                      ("exponential:mean=10,rate=3", "session.rate"),
                                      ("fixed:value=10,min=20,max=5", "session.max"),
                                      ("exponential:mean=-1", "session.mean"),
                                      ("exponential:mean=0", "session.mean")])
def test_bad_session_length_is_refused(text, key):
    with pytest.raises(ConfigError) as err:
        SessionLength.parse(text)
    assert err.value.key == key


@pytest.mark.parametrize("change,key", [({"boundary_share": 1.5}, "users.boundary_share"),
                                        ({"boundary_minutes": 0}, "users.boundary_minutes"),
                                        ({"hourly": (1.0,) * 23}, "users.hourly"),
                                        ({"peak_rate": -1}, "users.peak_rate"),
                                        ({"office_hours": "mon-fri 9-5"}, "users.office_hours"),
                                        ({"session": "nope"}, "users.session")])
def test_bad_model_parameters_are_refused(change, key):
    with pytest.raises(ConfigError) as err:
        generate_sessions(POOL, days=1, seed=1, model=replace(UserModel(), **change))
    assert err.value.key == key


def test_days_must_be_positive():
    with pytest.raises(ConfigError, match="users.days"):
        generate_sessions(POOL, days=0, seed=1)


_HOURS = ["24h", "mon-fri 08:00-18:00", "daily 22:00-02:00", "sat 10:00-12:00,13:00-14:00",
          "mon,wed 09:00-09:30", "closed"]


@settings(max_examples=examples(25))
@given(spec=st.lists(st.tuples(st.integers(1, 4), st.sampled_from(_HOURS)), min_size=1,
                     max_size=4),
       days=st.integers(1, 9), rate=st.floats(0.0, 3.0), seed=st.integers(0, 2**32),
       epoch=st.sampled_from(["2010-01-01", "2010-06-07 13:30", "2011-12-30 23:59"]),
       session=st.sampled_from(["fixed:value=7200", "exponential:mean=900,min=0",
                                "lognormal:median=3000,sigma=1.5,max=200000"]))
def test_property_generated_sessions_are_valid(spec, days, rate, seed, epoch, session):
    pool = [UserCluster(f"c{i}", m, OpeningHours.parse(h)) for i, (m, h) in enumerate(spec)]
    cal = Calendar(epoch)
    s = generate_sessions(pool, days=days, seed=seed, calendar=cal,
                          model=UserModel(peak_rate=rate, session=session))
    assert len(s.overlapping()) == 0
    assert s.counts["arrivals"] == s.counts["sessions"] + s.counts["turned_away"] == \
        len(s) + s.counts["turned_away"]
    assert np.all(s.logout >= s.login) and np.all((s.login >= 0) & (s.login < days * DAY))
    cluster = cluster_of_machine(pool)[s.machine]
    for c, uc in enumerate(pool):
        mine = cluster == c
        tl = uc.hours.timeline(cal, 0, days * DAY)
        assert np.all(tl.open_mask(s.login[mine]))
        assert np.all(s.logout[mine] <= tl.next_closings(s.login[mine]))


def test_owners_model_text_names_the_model_and_its_parameters():
    from ckptsim.platform.usermodel import model_text, parse_model

    assert parse_model("model") == UserModel()
    # Given at their defaults, in any order, the parameters name the default model.
    spelt = ("model:popularity_sigma=0.5,session=lognormal:median=2700,sigma=0.9,min=60,"
             "max=28800,peak_rate=0.4,office_hours=mon-fri 09:00-17:00")
    assert parse_model(spelt) == UserModel() and model_text(parse_model(spelt)) == "model"
    m = parse_model("model:session=fixed:value=600,saturday=0,office_hours=mon,wed 09:00-12:00,"
                    "hourly=" + "/".join(["0"] * 23 + ["2"]) + ",boundary_in_holidays=yes")
    assert m == replace(UserModel(), session="fixed:value=600", saturday=0.0,
                        office_hours="mon,wed 09:00-12:00", hourly=(0.0,) * 23 + (2.0,),
                        boundary_in_holidays=True)
    assert parse_model(model_text(m)) == m  # the text the run is keyed by reads back


@pytest.mark.parametrize("text,key", [
    ("model:peak=1", "availability.owners.peak"),
    ("model:peak_rate=fast", "availability.owners.peak_rate"),
    ("model:hourly=1/2/3", "availability.owners.hourly"),
    ("model:boundary_minutes=90", "availability.owners.boundary_minutes"),
    ("model:sunday=1,sunday=2", "availability.owners.sunday"),
    ("model:session=gamma:k=2", "availability.owners.session")])
def test_bad_owners_model_text_is_refused(text, key):
    from ckptsim.platform.usermodel import parse_model

    with pytest.raises(ConfigError) as err:
        parse_model(text)
    assert err.value.key == key


def test_owners_model_parameters_shape_the_sessions():
    # One 24 h cluster of 5 computers, 3 days from a Monday in term.  All arrivals in hour
    # 06:00-07:00 (hourly), none bunched before the hour (boundary_share=0), every session
    # 600 s: each session lies in [6 h, 7 h + 600 s) of its day.  peak_rate=0: no session.
    from ckptsim.platform.usermodel import parse_model

    pool = [UserCluster("room", 5, OpeningHours.parse("24h"))]
    cal = Calendar("2010-01-04", terms=["2010-01-04..2010-01-31"])
    hourly = "/".join("1" if h == 6 else "0" for h in range(24))
    m = parse_model(f"model:hourly={hourly},boundary_share=0,session=fixed:value=600,"
                    f"peak_rate=2")
    s = generate_sessions(pool, days=3, seed=1, calendar=cal, model=m)
    assert len(s) > 0
    assert np.all((s.login % DAY >= 6 * HOUR) & (s.login % DAY < 7 * HOUR))
    assert np.all(s.logout - s.login == 600.0)
    none = generate_sessions(pool, days=3, seed=1, calendar=cal,
                             model=parse_model("model:peak_rate=0"))
    assert len(none) == 0
