"""The pool's calendar: epoch and days, terms, opening hours and their timelines, reboots."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.calendar import DAY, HOUR, Calendar, TermRange
from ckptsim.errors import ConfigError
from ckptsim.platform.hours import OpeningHours, WeeklyHours
from ckptsim.platform.reboots import RebootSchedule

H = HOUR
MONDAY = Calendar("2010-01-04", terms=())  # time 0 = Monday 4 January 2010, 00:00


# -- calendar ---------------------------------------------------------------------------------

def test_default_epoch_is_friday_first_of_january_2010():
    cal = Calendar()
    assert cal.epoch == dt.datetime(2010, 1, 1)
    assert cal.weekday(0) == 4  # Friday
    assert cal.weekday(2 * DAY + 5) == 6  # Sunday 3 January
    assert cal.weekday(3 * DAY) == 0  # Monday 4 January
    assert cal.date(153) == dt.date(2010, 6, 3)


def test_epoch_with_a_time_of_day_shifts_day_boundaries():
    cal = Calendar("2010-01-04 12:00", terms=())
    assert cal.offset == 12 * H
    assert cal.day_index(0) == 0 and cal.day_index(12 * H - 1) == 0
    assert cal.day_index(12 * H) == 1
    assert cal.day_start(0) == -12 * H and cal.day_start(1) == 12 * H
    assert cal.weekday(12 * H) == 1  # Tuesday midnight


def test_no_daylight_saving_every_day_has_86400_seconds():
    # UK clocks went forward on 28 March 2010 and back on 31 October 2010.
    cal = Calendar("2010-03-27", terms=())
    assert cal.seconds(dt.datetime(2010, 3, 29)) == 2 * DAY
    assert cal.seconds(dt.datetime(2010, 11, 1, 9, 30)) == (dt.date(2010, 11, 1)
                                                            - dt.date(2010, 3, 27)).days * DAY \
        + 9.5 * H
    assert cal.datetime(2 * DAY + 3 * H) == dt.datetime(2010, 3, 29, 3)


def test_default_terms_inclusive_and_yearly():
    cal = Calendar()
    day = lambda d: (d - dt.date(2010, 1, 1)).days  # noqa: E731
    assert not cal.is_term_day(day(dt.date(2010, 1, 10)))
    assert cal.is_term_day(day(dt.date(2010, 1, 11)))
    assert cal.is_term_day(day(dt.date(2010, 3, 26)))  # end included
    assert not cal.is_term_day(day(dt.date(2010, 4, 1)))  # Easter break
    assert not cal.is_term_day(day(dt.date(2010, 8, 1)))
    assert not cal.is_term_day(day(dt.date(2010, 12, 25)))
    assert cal.is_term_day(day(dt.date(2011, 1, 11)))  # repeats every year
    assert cal.is_term(day(dt.date(2010, 10, 5)) * DAY + 10 * H)


def test_term_ranges_absolute_and_wrapping():
    absolute = Calendar("2010-01-01", terms=["2010-02-01..2010-02-03"])
    assert [absolute.is_term_day(k) for k in (30, 31, 33, 34)] == [False, True, True, False]
    assert not absolute.is_term_day(31 + 365)  # absolute: not repeated in 2011
    single = Calendar("2010-01-01", terms="2010-02-01..2010-02-03")  # one range as a string
    assert single.is_term_day(31) and not single.is_term_day(30)
    wrap = TermRange.parse("12-01..01-15")
    assert wrap.contains(dt.date(2010, 12, 20)) and wrap.contains(dt.date(2011, 1, 10))
    assert not wrap.contains(dt.date(2011, 2, 1))


@pytest.mark.parametrize("text", ["13-01..02-01", "2010-05-01..2010-04-01", "spring", "01-01",
                                  "1-01..02-01"])
def test_bad_term_range_is_refused(text):
    with pytest.raises(ConfigError, match="terms"):
        Calendar(terms=[text])


@pytest.mark.parametrize("epoch", ["yesterday", dt.datetime(2010, 1, 1, tzinfo=dt.UTC), 5])
def test_bad_epoch_is_refused(epoch):
    with pytest.raises(ConfigError, match="epoch"):
        Calendar(epoch)


# -- opening hours ----------------------------------------------------------------------------

def test_office_hours_parse_and_queries():
    h = OpeningHours.parse("mon-fri 08:00-18:00")
    assert h.term.by_weekday[0] == ((8 * H, 18 * H),) and h.term.by_weekday[5] == ()
    assert not h.is_open(MONDAY, 8 * H - 1) and h.is_open(MONDAY, 8 * H)
    assert h.is_open(MONDAY, 18 * H - 1) and not h.is_open(MONDAY, 18 * H)  # [open, close)
    assert h.next_opening(MONDAY, 0) == 8 * H
    assert h.next_opening(MONDAY, 8 * H) == DAY + 8 * H  # strictly after t
    assert h.next_closing(MONDAY, 0) == 18 * H
    assert h.next_closing(MONDAY, 9 * H) == 18 * H
    friday_evening = 4 * DAY + 19 * H
    assert h.next_opening(MONDAY, friday_evening) == 7 * DAY + 8 * H  # over the weekend
    assert not h.is_open(MONDAY, 5 * DAY + 12 * H)  # Saturday noon


def test_several_ranges_and_touching_ranges():
    h = OpeningHours.parse("mon 08:00-12:00,13:00-17:00")
    assert h.next_closing(MONDAY, 9 * H) == 12 * H
    assert not h.is_open(MONDAY, 12 * H) and h.next_opening(MONDAY, 12.5 * H) == 13 * H
    joined = OpeningHours.parse("mon 08:00-12:00, 12:00-17:00")
    assert joined.next_closing(MONDAY, 9 * H) == 17 * H
    assert joined.is_open(MONDAY, 12 * H)
    clauses = OpeningHours.parse("MON-FRI 08:00-18:00; Sat,Sun 10:00-16:00")
    assert clauses.is_open(MONDAY, 5 * DAY + 11 * H)
    assert not clauses.is_open(MONDAY, 6 * DAY + 9 * H)


def test_range_crossing_midnight_and_the_week_end():
    h = OpeningHours.parse("fri 22:00-02:00")
    fri = 4 * DAY
    assert not h.is_open(MONDAY, fri + 21 * H) and h.is_open(MONDAY, fri + 23 * H)
    assert h.is_open(MONDAY, fri + DAY + 1 * H) and not h.is_open(MONDAY, fri + DAY + 2 * H)
    assert h.next_closing(MONDAY, fri + 23 * H) == fri + 26 * H
    sunday_night = OpeningHours.parse("sun 22:00-02:00")
    assert sunday_night.is_open(MONDAY, 7 * DAY + 1 * H)  # Monday 01:00 of the next week
    assert sunday_night.is_open(MONDAY, 1 * H)  # and of the first week (Sunday before day 0)
    assert sunday_night.term.weekly_intervals() == [(0, 2 * H), (7 * DAY - 2 * H, 7 * DAY)]
    wrap_days = WeeklyHours.parse("fri-mon 10:00-12:00")
    assert [bool(d) for d in wrap_days.by_weekday] == [True, False, False, False, True, True,
                                                       True]


@pytest.mark.parametrize("text", ["24h", "always", "daily 24h", "mon-sun 00:00-24:00",
                                  "sat-sun 24h; mon-fri 00:00-12:00,12:00-24:00",
                                  "daily 06:00-06:01; daily 06:01-06:00"])
def test_always_open_forms(text):
    h = OpeningHours.parse(text)
    assert h.always
    assert h.next_closing(MONDAY, 5 * H) == math.inf
    assert h.next_opening(MONDAY, 5 * H) == math.inf
    assert h.is_open(MONDAY, 3 * DAY + 17)


def test_never_open():
    h = OpeningHours.parse("closed")
    assert h.term.never and not h.is_open(MONDAY, 10 * H)
    assert h.next_opening(MONDAY, 0) == math.inf and h.next_closing(MONDAY, 0) == math.inf


def test_holiday_hours_apply_out_of_term():
    cal = Calendar("2010-01-04", terms=["2010-01-11..2010-01-17"])  # second week in term
    h = OpeningHours.parse("mon-fri 08:00-18:00", holiday="mon-fri 10:00-16:00")
    assert h.next_opening(cal, 0) == 10 * H  # Monday 4th: holiday
    assert h.next_opening(cal, 7 * DAY) == 7 * DAY + 8 * H  # Monday 11th: term
    assert h.next_opening(cal, 14 * DAY) == 14 * DAY + 10 * H  # Monday 18th: holiday again
    assert not h.always


@pytest.mark.parametrize("text", ["", "mon-fri 8-18", "xyz 08:00-10:00", "mon 10:00-10:00",
                                  "mon 25:00-26:00", "mon 24:00-02:00", "mon", "mon 08:00",
                                  "mon-fri 08:60-09:00", "mon-funday 08:00-09:00"])
def test_bad_hours_are_refused_naming_the_key(text):
    with pytest.raises(ConfigError) as err:
        OpeningHours.parse(text, key="groups[2].hours")
    assert err.value.key.startswith("groups[2].hours")


def test_timeline_is_vectorised_and_clips_to_its_horizon():
    h = OpeningHours.parse("mon-fri 08:00-18:00")
    tl = h.timeline(MONDAY, 0, 7 * DAY)
    times = np.array([7 * H, 8 * H, 12 * H, 18 * H, 5 * DAY + 9 * H])
    assert tl.open_mask(times).tolist() == [False, True, True, False, False]
    # Saturday: the next closing is the next Monday's, past the horizon but on a computed day.
    assert tl.next_closings(times).tolist() == [18 * H, 18 * H, 18 * H, DAY + 18 * H,
                                                7 * DAY + 18 * H]
    assert tl.open_seconds() == 5 * 10 * H
    with pytest.raises(ValueError):
        tl.next_opening(7 * DAY)


# Property: the timeline agrees with a minute-by-minute reading of the weekly ranges.
_clock = st.integers(0, 24 * 60 - 1).map(lambda m: f"{m // 60:02d}:{m % 60:02d}")
_clause = st.tuples(st.sampled_from(["mon", "tue", "sat", "sun", "mon-fri", "fri-mon", "daily"]),
                    _clock, _clock).filter(lambda c: c[1] != c[2])


def _open_by_definition(weekly: WeeklyHours, cal: Calendar, t: float) -> bool:
    k = cal.day_index(t)
    for day in (k - 1, k):
        base = cal.day_start(day)
        for s, e in weekly.by_weekday[cal.weekday_of_day(day)]:
            if base + s <= t < base + e:
                return True
    return False


@settings(max_examples=examples(30))
@given(clauses=st.lists(_clause, min_size=1, max_size=3), start=st.integers(0, 7 * 24 * 60))
def test_property_timeline_matches_definition(clauses, start):
    text = "; ".join(f"{d} {a}-{b}" for d, a, b in clauses)
    h = OpeningHours.parse(text)
    t0 = start * 60.0
    tl = h.timeline(MONDAY, t0, t0 + 9 * DAY)
    step = 60.0
    grid = t0 + step * np.arange(8 * 24 * 60)
    truth = np.array([_open_by_definition(h.term, MONDAY, t) for t in grid])
    assert tl.open_mask(grid).tolist() == truth.tolist()
    opened = np.flatnonzero(truth[1:] & ~truth[:-1])
    closed = np.flatnonzero(~truth[1:] & truth[:-1])
    if len(opened):
        assert tl.next_opening(t0) == grid[opened[0] + 1]
    if len(closed):
        assert tl.next_closing(t0) == grid[closed[0] + 1]
    if truth.all():
        assert h.always or tl.next_closing(t0) > grid[-1]


# -- reboots ----------------------------------------------------------------------------------

def test_fixed_daily_reboot():
    r = RebootSchedule.parse("05:00")
    assert r.times(Calendar(), 0, 3 * DAY, cluster="a").tolist() == [5 * H, 29 * H, 53 * H]
    assert r.times(Calendar(), 0, 5 * H, cluster="a").tolist() == []  # [t0, t1): 05:00 excluded
    assert r.times(Calendar(), 5 * H, 5 * H + 1, cluster="a").tolist() == [5 * H]
    assert r.duration == 300.0


def test_reboot_on_given_days_only():
    r = RebootSchedule.parse("mon-fri 05:00")  # default epoch: Friday
    assert r.times(Calendar(), 0, 4 * DAY, cluster="a").tolist() == [5 * H, 3 * DAY + 5 * H]


def test_reboot_window_per_cluster_and_per_day():
    cal = Calendar()
    once = RebootSchedule.parse("03:00-05:00")
    t = once.times(cal, 0, 10 * DAY, cluster="lab", seed=7)
    tod = t - DAY * np.arange(10)
    assert len(t) == 10 and np.allclose(tod, tod[0], rtol=0, atol=1e-6)
    assert 3 * H <= tod[0] < 5 * H
    daily = RebootSchedule.parse("03:00-05:00", redraw="day")
    d = daily.times(cal, 0, 10 * DAY, cluster="lab", seed=7)
    tod = d - DAY * np.arange(10)
    assert np.all((tod >= 3 * H) & (tod < 5 * H)) and len(set(tod.tolist())) == 10
    # The same instants whatever window is asked, and across calls.
    assert daily.times(cal, 2 * DAY, 5 * DAY, cluster="lab", seed=7).tolist() == d[2:5].tolist()
    assert daily.times(cal, 0, 10 * DAY, cluster="lab", seed=7).tolist() == d.tolist()
    # Other clusters and other seeds draw other times.
    assert daily.times(cal, 0, DAY, cluster="union", seed=7)[0] != d[0]
    assert daily.times(cal, 0, DAY, cluster="lab", seed=8)[0] != d[0]


def test_no_reboot_before_day_zero():
    cal = Calendar("2010-01-01 06:00")  # day 0 began at -6 h; its 05:00 is before time 0
    assert RebootSchedule.parse("05:00").times(cal, 0, DAY, cluster="a").tolist() == [23 * H]


@pytest.mark.parametrize("text,kw,key", [("05:00-03:00", {}, "reboot"), ("5am", {}, "reboot"),
                                         ("05:00", {"redraw": "week"}, "reboot.redraw"),
                                         ("05:00", {"duration": -1}, "reboot.duration"),
                                         ("mon 05:00 extra", {}, "reboot")])
def test_bad_reboot_schedule_is_refused(text, kw, key):
    with pytest.raises(ConfigError) as err:
        RebootSchedule.parse(text, **kw)
    assert err.value.key == key
