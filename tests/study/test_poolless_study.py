"""A study on a scenario without ``[pool]`` (train trips): ``study create`` says at once
that the report will have nothing to choose from, and ``study report`` says how to pick
instead, after writing the population's weights (which need no pool)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import load_study
from tradeoff.study.opening import start_session

from ..conftest import SCENARIOS, spec

pytestmark = pytest.mark.e2e


def test_a_study_without_a_pool_says_so_and_how_to_pick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "s"
    args = ["study", "create", str(SCENARIOS / "train-trips.toml"), "--participants", "4"]
    assert main([*args, "--study", str(folder)]) == 0
    created = " ".join(capsys.readouterr().out.split())
    assert "the scenario names no [pool], so study report will have nothing" in created
    loaded = load_scenario(load_study(folder).scenario_path)
    for i in range(4):
        pid = f"p{i + 1:02d}"
        rec = start_session(
            loaded, pid, folder / "sessions", spec=spec(loaded.scenario, budget=6), seed=i
        )
        oracle = SimulatedOracle.for_scenario(loaded.scenario, [0.4, 0.3, 0.2, 0.1], seed=i)
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
        rec.close()
    out = tmp_path / "report"
    assert main(["study", "report", str(folder), "--out", str(out)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "has no [pool]: there is nothing to choose from" in err
    assert "tradeoff pick POOL.csv --session FILE" in err and "Traceback" not in err
    assert (out / "population.md").is_file()
