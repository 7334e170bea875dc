"""Options described by their aspects alone, end to end: simulate answers a simulated person
on both shipped aspect-only scenarios, and a session on the LLM leaderboard is read by
select, session show, rank and the report, each picking the model a brute force over the
pool says is best for the person's true weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.cli import main
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import SCENARIOS, scenario

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("name", ["llm-leaderboard", "train-trips"])
def test_simulate_answers_a_person_on_each_aspect_scenario(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", name, "--runs", "2", "--budget", "12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["names"] == [a.name for a in scenario(name).attributes]
    assert out["l1_error"]["max"] < 2.0 and out["queries"]["max"] <= 12
    if name == "llm-leaderboard":  # a pool: exact answers find the truth's best model
        assert out["decision"]["right_pick_rate"] == 1.0
    else:  # no pool: 12 exact answers pin the weights down
        assert out["l1_error"]["median"] < 0.3


def _session(tmp_path: Path, truth: list[float], participant: str = "p1") -> Path:
    loaded = load_scenario(SCENARIOS / "llm-leaderboard.toml")
    rec = start_session(loaded, participant, tmp_path, seed=2)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, truth)
    while (q := rec.engine.next_query()) is not None:
        rec.answer(oracle.choose(q))
    rec.close()
    return Path(rec.path)


def test_select_rank_and_report_on_the_leaderboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sc = scenario("llm-leaderboard")
    truth = [0.08, 0.01, 0.004, 0.004, 0.004]  # CO₂ matters most, then instructions
    path = _session(tmp_path, truth)
    # The truth's best model, by brute force over the pool.
    pool = scenario_pool(sc, SCENARIOS)
    psi = metric_vectors(sc, pool, []) @ np.asarray(truth)
    best = pool.names[int(np.argmax(psi))]
    assert main(["select", "--session", str(path), "--json"]) == 0
    chosen = json.loads(capsys.readouterr().out)
    assert chosen["stakeholders"][0]["recommended"] == best
    assert main(["session", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "CO2" in shown and "per 1,000" not in shown
    metric = ",".join(str(w) for w in truth)
    pool_file = str(SCENARIOS / "pools" / "llm-leaderboard.csv")
    assert main(["rank", pool_file, "--scenario", "llm-leaderboard", "--metric", metric]) == 0
    ranked = capsys.readouterr().out
    said = " ".join(ranked.split())  # its sentences are broken to fit 80 columns
    assert f"Recommended by the metric: {best} (the selectable option of highest ψ)" in said
    assert "models" not in ranked and " options;" in ranked
    out = tmp_path / "report"
    assert main(["report", "--session", str(path), "--out", str(out)]) == 0
    report = (out / "report.md").read_text()
    assert f"**Recommendation: {best}**" in report
    assert "| CO2 | cost |" in report and "class" not in report.lower().split("## stakeholders")[1]
    # COPA's table and explanation name the aspects as the scenario does, not the pool's columns
    assert "| CO2 (kg) |" in report and "co2_kg" not in report and "math_lvl5" not in report
    # options described by their aspects are options, not candidate models
    assert f"of {pool.n} candidate options" in report and "candidate models" not in report
    assert "the option their answers make best" in report, report
    assert "the model these answers make best" not in report
    # what the report weighs, beside the scenario's description (which may speak of another pool)
    assert f"This report weighs the {pool.n} options of " in report
    assert "COPA scores an option by its rank" in report and "order of the models" not in report


def test_the_groups_pick_is_an_option_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two people who want different models of the leaderboard: the group's line of the
    summary (the report's, and ranking details') names the consensus as an option, as
    each person's line does."""
    green = _session(tmp_path, [0.08, 0.01, 0.004, 0.004, 0.004], "green")
    maths = _session(tmp_path, [0.0005, 0.001, 0.001, 0.08, 0.001], "maths")
    out = tmp_path / "report"
    assert main(["report", "--session", str(green), str(maths), "--out", str(out)]) == 0
    said = " ".join((out / "report.md").read_text().split())
    assert "the option whose largest regret over everyone is smallest" in said, said
    assert "model whose largest regret" not in said
    assert main(["select", "--session", str(green), str(maths)]) == 0
    rule = " ".join(capsys.readouterr().out.split())
    assert "(an option's regret: how much less it gives them" in rule
    assert "then the option recommended to more of them" in rule and "model" not in rule
