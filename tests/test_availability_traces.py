"""Availability traces as the availability component reads them: the options of a trace
source (`ckptsim.platform.avt.parse_source`) and what a trace replays on the machines."""

from __future__ import annotations

import pytest

from ckptsim.components.availability import Availability
from ckptsim.errors import ConfigError

FTA_HEADER = ("event_id component_id node_id platform_id node_name event_type "
              "event_start_time event_stop_time event_end_reason\n")


def fta_file(tmp_path, rows: list[str]) -> str:
    path = tmp_path / "event_trace.tab"
    path.write_text(FTA_HEADER + "".join(f"{row}\n" for row in rows))
    return str(path)


@pytest.mark.parametrize("platform", ["5.7", "5.0", "5e0", "-1", "five", ""])
def test_an_fta_trace_platform_is_a_whole_number(tmp_path, platform):
    # 5.7 used to be read as platform 5 (int(float(...))).
    path = fta_file(tmp_path, ["0 0 1 5 a 0 100 200 NULL"])
    with pytest.raises(ConfigError) as err:
        Availability.make_params({"trace": f"fta:path={path},platform={platform}"})
    assert err.value.key == "availability.trace"
    assert f"platform={platform!r}" in str(err.value)
    assert "an integer >= 0" in str(err.value)


def test_an_fta_trace_platform_selects_that_platform(tmp_path):
    from ckptsim.platform.avt import load_source

    path = fta_file(tmp_path, ["0 0 1 5 a 0 100 200 NULL", "1 0 2 6 b 0 150 400 NULL"])
    Availability.make_params({"trace": f"fta:path={path},platform=6"})
    t = load_source(f"fta:path={path},platform=6")
    assert (t.names, t.start.tolist(), t.end.tolist()) == (("2",), [0.0], [250.0])


def test_a_start_past_the_trace_end_is_refused(tmp_path):
    # It used to replay nothing: every machine available, silently (e.g. start in minutes
    # typed as seconds past a 35-day trace).
    from ckptsim.platform.avt import map_onto, read_avt

    path = tmp_path / "t.avt"
    path.write_text("x 1 10 50\ny 1 0 40\n")
    t = read_avt(path)
    for start in (50.0, 4e6):
        with pytest.raises(ConfigError) as err:
            map_onto(t, 2, skip=start)
        assert err.value.key == "availability.trace"
        assert f"start={start:.10g} skips the whole trace" in str(err.value)
        assert "ends at 50 s; accepted: a start below 50 s" in str(err.value)
    m, s, e = map_onto(t, 2, skip=45.0)  # y is down over [40, 50): 5 s of it is left
    assert (m.tolist(), s.tolist(), e.tolist()) == ([1], [0.0], [5.0])


def test_a_start_past_an_fta_trace_end_counts_its_open_repairs(tmp_path):
    from ckptsim.platform.avt import load_source, map_onto

    # The last failure starts at 100 s after the first; its repair lasts to 300 s.
    path = fta_file(tmp_path, ["0 0 1 5 a 0 1000 1050 NULL", "1 0 2 5 b 0 1100 1300 NULL"])
    t = load_source(f"fta:path={path}")
    assert map_onto(t, 2, skip=250.0)[1].tolist() == [0.0]
    with pytest.raises(ConfigError, match="ends at 300 s"):
        map_onto(t, 2, skip=300.0)


def test_a_run_with_a_start_past_the_trace_end_is_refused(tmp_path):
    from helpers import jobs

    from ckptsim.engine.simulator import Simulator
    from ckptsim.policies.base import scheduler_factory

    path = tmp_path / "t.avt"
    path.write_text("x 1 10 50\n")
    comp = Availability(Availability.make_params({"trace": f"avt:path={path},start=60"}))
    with pytest.raises(ConfigError, match="start=60 skips the whole trace"):
        Simulator(jobs([(0.0, 10.0, 1, 10.0)], 2), scheduler_factory("easy"),
                  components=[comp]).run()


def test_an_avt_trace_starts_when_its_measurements_start(tmp_path):
    # web_sites.avt's sessions start at 86,124 s at the earliest: counted from the file's 0,
    # every machine was down for the run's first day, before any node was measured.
    from ckptsim.platform.avt import map_onto, read_avt

    path = tmp_path / "t.avt"
    path.write_text("x 2 100 120 130 150\ny 1 110 140\nz 0\n")
    t = read_avt(path)
    assert t.span == 50.0  # from 100 (the earliest start) to 150 (the latest end)
    got = list(zip(t.node.tolist(), t.start.tolist(), t.end.tolist(), strict=True))
    # x: down between 120 and 130; y: down before 110 and after 140; z: down throughout.
    assert got == [(0, 20.0, 30.0), (1, 0.0, 10.0), (1, 40.0, 50.0), (2, 0.0, 50.0)]
    m, s, e = map_onto(t, 2, offset=1000.0)
    assert list(zip(m.tolist(), s.tolist(), e.tolist(), strict=True)) == [
        (1, 1000.0, 1010.0), (0, 1020.0, 1030.0), (1, 1040.0, 1050.0)]


# -- .avt nodes with no session: empty=down (the default) or empty=skip -------------------------
EMPTY_AVT = "x 1 10 50\ny 0\nz 1 0 40\nw 1 0 30\n"


def replayed(*mapped) -> list[tuple[int, float, float]]:
    return list(zip(*(a.tolist() for a in mapped), strict=True))


def test_an_empty_avt_node_is_down_by_default_and_replaced_under_skip(tmp_path):
    # y has no session: never seen up, which the file cannot tell from never measured.
    from ckptsim.platform.avt import load_source, map_onto

    path = tmp_path / "t.avt"
    path.write_text(EMPTY_AVT)
    t = load_source(f"avt:path={path},empty=skip")  # the trace is the same under both
    assert (t.names, t.measured.tolist()) == (("x", "y", "z", "w"), [True, False, True, True])
    assert replayed(t.node, t.start, t.end) == [(0, 0.0, 10.0), (1, 0.0, 50.0),
                                               (2, 40.0, 50.0), (3, 30.0, 50.0)]
    # map=first onto 2 machines: machine 1 replays y, down throughout, or under skip the next
    # measured node after the first 2, z; machine 0 keeps x.
    assert replayed(*map_onto(t, 2)) == replayed(*map_onto(t, 2, empty="down")) == [
        (0, 0.0, 10.0), (1, 0.0, 50.0)]
    assert replayed(*map_onto(t, 2, empty="skip")) == [(0, 0.0, 10.0), (1, 40.0, 50.0)]
    # 4 machines on 3 measured nodes: the measured nodes in turn, cyclically.
    assert replayed(*map_onto(t, 4, empty="skip")) == [
        (0, 0.0, 10.0), (3, 0.0, 10.0), (2, 30.0, 50.0), (1, 40.0, 50.0)]


def test_map_random_under_skip_changes_only_the_machines_on_empty_nodes(tmp_path):
    from ckptsim.platform.avt import map_onto, read_avt
    from ckptsim.rng import RandomStreams

    # Node ni (i = 0..11) is up over (0, i + 1) and down from i + 1 to the trace's end, 12:
    # a machine's downtime names its node (n11: none; n2, n5, n7 have no session: 12 s).
    empty = (2, 5, 7)
    path = tmp_path / "t.avt"
    path.write_text("".join(f"n{i} 0\n" if i in empty else f"n{i} 1 0 {i + 1}\n"
                            for i in range(12)))
    t = read_avt(path)

    def nodes(mapped) -> dict[int, int]:  # machine -> node (-1: one without a session)
        return {m: round(11 - (e - s)) for m, s, e in replayed(*mapped)}

    drawn = 0
    for seed in range(1, 31):
        order = RandomStreams(seed).stream("availability.mapping").permutation(12).tolist()
        spare = iter(n for n in order[6:] if n not in empty)
        skip = {m: (next(spare) if node in empty else node) for m, node in enumerate(order[:6])}
        assert nodes(map_onto(t, 6, method="random", seed=seed)) == {
            m: -1 if node in empty else node for m, node in enumerate(order[:6]) if node != 11}
        assert nodes(map_onto(t, 6, method="random", seed=seed, empty="skip")) == {
            m: node for m, node in skip.items() if node != 11}
        drawn += sum(node in empty for node in order[:6])
    assert drawn > 0  # some seeds draw a node without a session


def test_an_avt_file_without_any_session_is_refused_under_skip(tmp_path):
    from ckptsim.platform.avt import load_source, map_onto

    path = tmp_path / "t.avt"
    path.write_text("# nothing measured\na 0\nb 0\n")
    t = load_source(f"avt:path={path},empty=skip")
    with pytest.raises(ConfigError) as err:
        map_onto(t, 2, empty="skip")
    assert err.value.key == "availability.trace"
    assert f"none of the 2 nodes of avt:{path} has a session: empty=skip leaves no node to " \
           "replay; accepted: a trace with a session, or empty=down" in str(err.value)


@pytest.mark.parametrize("option, message", [
    ("empty=maybe", "empty='maybe'; accepted: down, skip"),
    ("empty=", "empty=''; accepted: down, skip"),
    ("colour=red", "unknown option 'colour=red' of avt; accepted: path, map, start, empty"),
])
def test_the_empty_option_is_checked(tmp_path, option, message):
    path = tmp_path / "t.avt"
    path.write_text(EMPTY_AVT)
    with pytest.raises(ConfigError) as err:
        Availability.make_params({"trace": f"avt:path={path},{option}"})
    assert err.value.key == "availability.trace"
    assert message in str(err.value)


def test_a_run_under_skip_does_not_wait_for_a_never_measured_node(tmp_path):
    # A 2-node job on 2 machines, the second replaying y: it waits for the trace's end (50 s)
    # under the default and starts at once under skip (machine 1 replays z, up until 40 s).
    from helpers import jobs

    from ckptsim.engine.simulator import Simulator
    from ckptsim.policies.base import scheduler_factory

    path = tmp_path / "t.avt"
    path.write_text("x 1 0 50\ny 0\nz 1 0 40\n")
    starts = {}
    for empty in ("down", "skip"):
        comp = Availability(Availability.make_params(
            {"trace": f"avt:path={path},empty={empty}", "on_unavailable": "kill"}))
        sim = Simulator(jobs([(0.0, 10.0, 2, 10.0)], 2), scheduler_factory("easy"),
                        components=[comp])
        sim.run()
        starts[empty] = sim.jobs[0].start
    assert starts == {"down": 50.0, "skip": 0.0}


def test_runs_without_empty_keep_their_ids(tmp_path):
    # Ids recorded before the option existed; empty=down names the default: the same runs.
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import load_spec

    (tmp_path / "t.avt").write_text("x 1 0 100\ny 0\n")
    before = ["1355c11a0a014e0eda922a56baef447449b10f04fca3a62c00a62a2ed6d9ef86",
              "8b1077d8b3ddfefe360596a100f36c715a711fccf3df3548268fe12239b19f47"]
    ids = {}
    for empty in ("", ",empty=down", ",empty=skip"):
        spec = tmp_path / "s.toml"
        spec.write_text(f'name = "avt-id"\nseeds = [1]\n\n[workloads.w]\ngenerator = "htc"\n'
                        f'days = 1\nplatform = "newcastle"\n\n'
                        f'[workloads.w.components.availability]\n'
                        f'trace = ["avt:path=t.avt{empty}", "avt:path=t.avt,map=random{empty}"]'
                        f'\n\n[[schedulers]]\nname = "htc"\n')
        ids[empty] = [r.run_id for r in build_matrix(load_spec(spec))]
    assert ids[""] == ids[",empty=down"] == before
    assert not set(ids[",empty=skip"]) & set(before)
