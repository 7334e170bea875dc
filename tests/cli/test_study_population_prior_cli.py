"""``study create``'s switch of the population prior: off by default for a new study, on
with ``--population-prior`` (later participants start from what earlier ones said)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.study.pooling import POOLING_FILE, Pooling, current_prior, read_pooling

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


def test_off_by_default_and_on_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = str(small_scenario_file(tmp_path))
    on, off = tmp_path / "on", tmp_path / "off"
    argv = ["study", "create", scenario, "--participants", "2", "--study"]
    assert main([*argv, str(off), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["population_prior"] is False
    assert json.loads((off / POOLING_FILE).read_text())["enabled"] is False
    assert current_prior(off) is None
    assert main([*argv, str(on), "--population-prior"]) == 0
    assert "population prior pooled from finished sessions" in capsys.readouterr().out
    assert read_pooling(on) == Pooling(True, every=10)


def test_the_cadence_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(small_scenario_file(tmp_path))
    argv = ["study", "create", scenario, "--participants", "2", "--study", str(tmp_path / "s")]
    assert main([*argv, "--population-prior-every", "0"]) == 2
    err = capsys.readouterr().err
    assert "--population-prior-every" in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()
