"""The decide step (`tradeoff.choose.decide`): typed results, the pool taken from the scenario's
`[pool]` (relative to the scenario file), a located error when there is none, options
checked once; and `select`/`report` without a pool path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.scenario import LoadedScenario, load_scenario
from tradeoff.choose.decide import Decision, decide, decide_session
from tradeoff.choose.recommend import Recommendation
from tradeoff.choose.selection import Selection
from tradeoff.choose.stakeholder import Stakeholder
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import ROOT, SCENARIOS, small_scenario_file, spec

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]

BREAST = "breast-cancer-triage"
SMALL = {"seed = 569": "seed = 569\nsamples = 20000"}
TRUTHS = ((0.6, 0.2, 0.1, 0.1), (0.2, 0.6, 0.1, 0.1))


def record(loaded: LoadedScenario, folder: Path, who: str, truth: tuple[float, ...]) -> Path:
    rec = start_session(loaded, who, folder, spec=spec(loaded.scenario, budget=6), seed=len(who))
    oracle = SimulatedOracle.for_scenario(loaded.scenario, truth)
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
    return rec.path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """A scenario file in its own folder, its pool beside it at the relative path its
    ``[pool]`` names, and two finished sessions recorded on it."""
    folder = tmp_path_factory.mktemp("decide")
    path = small_scenario_file(folder, BREAST, **SMALL)
    shutil.copytree(SCENARIOS / "pools", folder / "pools")
    loaded = load_scenario(path)
    sessions = [record(loaded, folder / "sessions", f"p{i}", t) for i, t in enumerate(TRUTHS)]
    return path, sessions


def test_decide_returns_typed_results_and_the_pool_the_scenario_names(
    recorded: tuple[Path, list[Path]],
) -> None:
    path, sessions = recorded
    assert not (ROOT / "pools").exists()  # so the pool is found beside the scenario, not here
    decision = decide(sessions)
    assert isinstance(decision, Decision)
    assert decision.scenario.id == BREAST
    assert Path(decision.pool_path) == path.parent / "pools" / "breast-cancer.csv"
    assert decision.pool.n == 34
    assert isinstance(decision.selection, Selection)
    assert [s.participant for s in decision.stakeholders] == ["p0", "p1"]
    assert all(isinstance(s, Stakeholder) for s in decision.stakeholders)
    assert len(decision.recommendations) == 2
    assert all(isinstance(r, Recommendation) for r in decision.recommendations)
    assert decision.recommendations == tuple(decision.selection.recommendations)
    assert decision.consensus in decision.pool.names
    data = decision.to_dict()
    assert data["scenario"] == BREAST and data["pool"] == decision.pool_path
    assert data["consensus"]["name"] == decision.consensus

    # The same decision when the pool is given as a file, or loaded, or with the scenario.
    given = decide(sessions, SCENARIOS / "pools" / "breast-cancer.csv")
    loaded = decide(sessions, decision.pool)
    with_scenario = decide(sessions, scenario=path)
    for other in (given, loaded, with_scenario):
        assert [r.name for r in other.recommendations] == [r.name for r in decision.recommendations]
        assert other.consensus == decision.consensus
        np.testing.assert_allclose(other.selection.regret, decision.selection.regret, atol=1e-12)


def test_the_scenario_given_decides_where_its_pool_is(
    recorded: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``scenario``, the ``[pool]`` path is relative to that file's folder."""
    _, sessions = recorded
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(recorded[0], moved / "scenario.toml")
    with pytest.raises(InputError) as err:
        decide(sessions, scenario=moved / "scenario.toml")
    assert err.value.source == str(moved / "scenario.toml")
    (problem,) = err.value.problems
    assert problem.location == "pool.path"
    assert str(moved / "pools" / "breast-cancer.csv") in problem.problem
    assert "give the pool file" in problem.fix
    argv = ["select", "--session", *map(str, sessions), "--scenario", str(moved / "scenario.toml")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "pool.path: names the pool 'pools/breast-cancer.csv'" in err
    assert "or --scenario FILE (its [pool] path is read relative to it)" in err
    shutil.copytree(SCENARIOS / "pools", moved / "pools")
    decision = decide(sessions, scenario=moved / "scenario.toml")
    assert Path(decision.pool_path) == moved / "pools" / "breast-cancer.csv"


def test_no_pool_anywhere_is_a_located_error(tmp_path: Path) -> None:
    path = small_scenario_file(tmp_path)  # glaucoma screening: no [pool]
    session = record(load_scenario(path), tmp_path / "sessions", "p0", (0.4, 0.3, 0.2, 0.1))
    with pytest.raises(InputError) as err:
        decide([session])
    assert err.value.source == str(path)
    (problem,) = err.value.problems
    assert problem.location == "pool"
    assert "no pool file was given" in problem.problem and "no [pool]" in problem.problem
    assert "give the pool file" in problem.fix and "add [pool]" in problem.fix


def test_options_are_checked_before_any_work_and_named() -> None:
    for options, name in (({"p": 0.5}, "p"), ({"p": float("nan")}, "p"), ({"top": 0}, "top")):
        with pytest.raises(InputError) as err:
            decide(["not-read.jsonl"], **options)  # type: ignore[arg-type]
        assert (err.value.source, err.value.problems[0].location) == ("options", name)


def test_decide_session_is_decide_on_the_live_engine(tmp_path: Path) -> None:
    """The result screen's call: a session as its engine stands gives what replaying its
    file gives."""
    path = small_scenario_file(tmp_path, BREAST, **SMALL)
    shutil.copytree(SCENARIOS / "pools", tmp_path / "pools")
    loaded = load_scenario(path)
    rec = start_session(loaded, "live", tmp_path / "s", spec=spec(loaded.scenario, budget=5))
    oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTHS[0])
    with rec:
        for _ in range(4):
            q = rec.engine.next_query()
            assert q is not None
            rec.answer(oracle.choose(q))
        live = decide_session(rec.header, rec.engine, rec.path)
    replayed = decide([rec.path])
    assert live.pool_path == replayed.pool_path
    (a,), (b,) = live.recommendations, replayed.recommendations
    assert (a.name, a.runner_up) == (b.name, b.runner_up)
    np.testing.assert_allclose(a.expected, b.expected, rtol=0, atol=1e-12)
    assert live.selection.picks[0].selected.name == replayed.selection.picks[0].selected.name


def test_select_and_report_without_a_pool_path(
    recorded: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, sessions = recorded
    given = ["select", str(SCENARIOS / "pools" / "breast-cancer.csv")]
    args = ["--session", *map(str, sessions), "--json"]
    assert main([*given, *args]) == 0
    with_pool = json.loads(capsys.readouterr().out)
    assert main(["select", *args]) == 0
    without = json.loads(capsys.readouterr().out)
    assert without["pool"] == str(path.parent / "pools" / "breast-cancer.csv")
    for key in ("stakeholders", "regret", "consensus"):
        assert without[key] == with_pool[key]

    out = tmp_path / "report"
    assert main(["report", "--session", *map(str, sessions), "--out", str(out)]) == 0
    assert "report written" in capsys.readouterr().out
    assert (out / "report.md").is_file() and (out / "report.html").is_file()


def test_pick_without_a_pool_refuses_with_the_fix(
    recorded: tuple[Path, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, sessions = recorded
    pool = str(SCENARIOS / "pools" / "breast-cancer.csv")
    assert main(["pick", "--session", str(sessions[0]), pool]) == 2
    err = capsys.readouterr().err
    assert "looks like a pool file" in err and "tradeoff pick POOL --session" in err

    glaucoma = small_scenario_file(tmp_path)
    session = record(load_scenario(glaucoma), tmp_path / "s", "p0", (0.4, 0.3, 0.2, 0.1))
    for command in (["select"], ["report", "--out", str(tmp_path / "r")]):
        assert main([*command, "--session", str(session)]) == 2
        err = capsys.readouterr().err
        assert f"{glaucoma}: pool: no pool file was given" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()

    for bad, flag in ((["--top", "0"], "--top: must be at least 1"), (["--p", "0.5"], "--p:")):
        assert main(["select", pool, "--session", str(sessions[0]), *bad]) == 2
        assert flag in capsys.readouterr().err
