"""``tradeoff choices fit``: one session per person from their recorded choices, which
replays to the same posterior as learning from the choices directly, and which session
show and select read (P(best) on the scenario's pool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.learn.choices import learn_choices, pairs
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.study.choices import fit_file, read_choices

from ..conftest import SCENARIOS, scenario
from ..learn.test_choices import train_file, write

pytestmark = pytest.mark.e2e


def test_fit_writes_sessions_that_replay_to_the_same_posterior(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = load_scenario(SCENARIOS / "train-trips.toml")
    path = train_file(tmp_path, {"ana": "A", "bo": "B"})
    train = read_choices(path, loaded.scenario, answers=True)
    files = fit_file(loaded, train, tmp_path / "sessions")
    assert [f.parent.name for f in files] == ["ana", "bo"]
    rows = train.people()["ana"]
    direct = learn_choices(
        loaded.scenario,
        pairs(loaded.scenario, [r.a for r in rows], [r.b for r in rows]),
        [r.choice for r in rows if r.choice is not None],
    ).result()
    log = read_session(files[0])
    assert log.finished and log.warnings == []
    assert replay(log).result().weights == pytest.approx(direct.weights)
    assert main(["session", "show", str(files[0])]) == 0
    shown = capsys.readouterr().out
    assert "answers 6 (recorded 6, undos 0), complete: yes" in shown and "Unfinished" not in shown


def test_fit_on_the_leaderboard_gives_p_best_on_its_pool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recorded choices between two models: a person who always took the model with less
    CO₂ gets a pick, with P(best), from select."""
    names = ["CO2", "IFEval", "BBH", "MATH", "MMLU-PRO"]
    header = ",".join(["person", *(f"{s}_{n}" for s in "AB" for n in names), "answer"])
    green, strong = "0.6,70,30,10,25", "30,85,55,35,50"
    path = write(tmp_path / "t.csv", [header, *[f"eve,{green},{strong},A"] * 5])
    args = ["choices", "fit", str(path), "--scenario", "llm-leaderboard"]
    assert main([*args, "--sessions-dir", str(tmp_path / "s"), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert main(["select", "--session", session, "--json"]) == 0
    [person] = json.loads(capsys.readouterr().out)["stakeholders"]
    assert person["participant"] == "eve" and 0 < person["p_best"] <= 1
    spans = {a.name: a.range[1] - a.range[0] for a in scenario("llm-leaderboard").attributes}
    swing = {name: w * spans[name] for name, w in person["weights"].items()}
    assert swing["CO2"] == max(swing.values())  # over its range, CO₂ matters most
