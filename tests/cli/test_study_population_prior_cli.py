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


def test_the_help_says_what_the_prior_saved_and_what_exclude_inconsistent_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`study create --help` says what benchmarks/results/population-study.md measured at
    0.8.0 (the last 100 people: 10 questions against 13 without the prior), not that the
    prior saves none; `study report --help` says what --exclude-inconsistent does."""
    assert main(["study", "create", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the help's lines joined
    line = text.split("--population-prior ")[1].split("--no-population-prior")[0]
    assert "saves no questions" not in line
    assert "10 questions (median) with it against 13 without, 23% fewer" in line
    assert "population-study.md" in line
    measured = Path(__file__).parents[2] / "benchmarks/results/population-study.md"
    at_080 = measured.read_text(encoding="utf-8").split("## At 0.8.0")[1].split("\n## ")[0]
    assert "| last 100 | 10 (was 10.5) |" in at_080 and "13 → 10 (23.1 %" in at_080
    assert main(["study", "report", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    line = text.split("--exclude-inconsistent ")[-1].split("--exclude-inattentive")[0]
    assert "flagged as inconsistent" in line and "out of the consensus" in line
