"""Shipped scenarios by id: `tradeoff scenario list`, and an id wherever a file is asked for
(the wheel test runs the same from a folder outside the checkout)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.data import resolve_scenario, shipped_ids, shipped_scenarios

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def test_the_shipped_ids_are_the_repositorys_scenarios() -> None:
    assert set(shipped_ids()) == {p.stem for p in SCENARIOS.glob("*.toml")}
    for sid in shipped_ids():
        assert load_scenario(sid).scenario.id == sid  # the id inside is the file's name


def test_scenario_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["scenarios"]
    assert [s["id"] for s in listed] == list(shipped_ids())
    pools = {s["id"]: s["pool"] for s in listed}
    assert pools["breast-cancer-triage"] is True and pools["paper-k2-two-costs"] is False
    assert all(Path(s["path"]).is_file() for s in listed)
    assert main(["scenario", "list"]) == 0
    text = capsys.readouterr().out
    assert "breast-cancer-triage" in text and "yes" in text and "Glaucoma screening" in text


def test_an_existing_path_wins_over_an_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_scenario("glaucoma-screening") == shipped_scenarios() / "glaucoma-screening.toml"
    (tmp_path / "glaucoma-screening").write_text("not a scenario")
    assert resolve_scenario("glaucoma-screening") == Path("glaucoma-screening")
    # a path with a folder is never taken for an id
    assert resolve_scenario("elsewhere/glaucoma-screening.toml").parent.name == "elsewhere"


def test_commands_take_an_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no scenarios/ folder here
    assert main(["scenario", "check", "paper-k2-two-costs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "paper-k2-two-costs"
    assert main(["simulate", "paper-k2-two-costs.toml", "--runs", "1", "--budget", "4"]) == 0


def test_an_unknown_id_names_the_shipped_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "check", "glaucoma"]) == 2
    err = capsys.readouterr().err
    assert "did you mean glaucoma-screening?" in err and "tradeoff scenario list" in err
    assert "Traceback" not in err
