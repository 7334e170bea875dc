"""``pool rank --metric`` and ``simulate --truth`` take weights per unit (the first column of
``session show``); their help says so, and numbers that look like the swing shares pick
prints (they add up to about 100 or 1, and read per unit the scenario's ranges would hand
one aspect much more of the weight than it was given) are noted on stderr with the
per-unit weights to give instead."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tradeoff.ask.population import scenario_priors
from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.cli.per_unit import swing_share_note, swing_share_rows_note

from ..conftest import SCENARIOS, small_scenario_file

pytestmark = pytest.mark.core

#: session show's swing shares of the example oncologist (breast-cancer-triage), in %, and
#: the per-unit weights it prints in its first column.
SWING = "60.9,36.8,1.5,0.8"
PER_UNIT = "0.736,0.264,0.000461,4.66e-06"


@pytest.mark.parametrize("argv", [["simulate"], ["pool", "rank"]])
def test_the_help_says_per_unit_and_where_to_read_them(argv: list[str]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--help"]) == 0
    text = " ".join(out.getvalue().split())
    assert "weights per unit" in text
    assert "first column of `tradeoff session show`" in text
    assert "not the swing shares" in text


def test_swing_shares_are_noted_with_the_weights_to_give(tmp_path: Path) -> None:
    scenario = load_scenario(small_scenario_file(tmp_path)).scenario  # glaucoma: wait 0–19 min
    priors = scenario_priors(scenario)
    note = swing_share_note([31.8, 59.1, 7.1, 2.0], scenario, priors, "--truth")
    assert note is not None
    assert "--truth takes weights per unit" in note and "wait per min" in note
    assert "31.8, 59.1, 7.1, 2 look like swing shares in % " in note and "add up to 100" in note
    assert "wait 39% of the weight over its whole range though it was given 2.0%" in note
    instead = note.split("give --truth ")[1].split(" ")[0]
    again = [float(x) for x in instead.split(",")]
    assert swing_share_note(again, scenario, priors, "--truth") is None  # per unit: no note
    as_fractions = swing_share_note([0.318, 0.591, 0.071, 0.02], scenario, priors, "--truth")
    assert as_fractions is not None


def test_numbers_that_are_not_shares_are_not_noted(tmp_path: Path) -> None:
    scenario = load_scenario(small_scenario_file(tmp_path)).scenario
    priors = scenario_priors(scenario)
    glaucoma_per_unit = [0.802, 0.166, 0.0325, 0.000265]  # session show's, for 31.8 % …
    wrong_length = [31.8, 59.1, 7.1]
    for given in ([3.0, 5.0, 1.0, 2.0], wrong_length, glaucoma_per_unit):
        assert swing_share_note(given, scenario, priors, "--truth") is None


def test_simulate_notes_swing_shares_given_as_truth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = str(small_scenario_file(tmp_path))
    assert main(["simulate", scenario, "--truth", "31.8,59.1,7.1,2.0", "--budget", "2"]) == 0
    err = capsys.readouterr().err
    assert "note: --truth takes weights per unit" in err and "give --truth 0.8" in err
    assert (
        main(["simulate", scenario, "--truth", "0.8,0.166,0.0325,0.000265", "--budget", "2"]) == 0
    )
    assert "per unit" not in capsys.readouterr().err


def test_pool_rank_notes_swing_shares_given_as_metric(capsys: pytest.CaptureFixture[str]) -> None:
    pool = str(SCENARIOS / "pools" / "breast-cancer.csv")
    argv = ["pool", "rank", pool, "--scenario", "breast-cancer-triage", "--top", "1", "--metric"]
    assert main([*argv, SWING]) == 0
    err = capsys.readouterr().err
    assert "note: --metric takes weights per unit" in err
    assert "memory 90% of the weight over its whole range though it was given 0.8%" in err
    assert "give --metric 0.736,0.264,0.000452,4.81e-06 instead" in err
    assert main([*argv, PER_UNIT, "--json"]) == 0
    assert capsys.readouterr().err == ""


def test_a_scenario_measured_per_natural_unit_gets_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Paper 004's Table 1 weights per unit (the README's example) on its scenario, whose
    ``precision = "natural"`` says its weights are per unit: no note. The same numbers on
    the same ranges measured in swing weights look like shares, and are noted."""
    paper = SCENARIOS / "paper-k2-reward-cost.toml"
    table_1 = "0.10,0.05,0.05,0.80"
    argv = ["simulate", "--truth", table_1, "--budget", "2", "--strategy", "paper"]
    assert main([*argv, str(paper)]) == 0
    assert "look like swing shares" not in capsys.readouterr().err
    swing = tmp_path / "swing.toml"
    swing.write_text(paper.read_text().replace('precision = "natural"', 'precision = "swing"'))
    assert main([*argv, str(swing)]) == 0
    assert "0.1, 0.05, 0.05, 0.8 look like swing shares" in capsys.readouterr().err
    scenario = load_scenario(paper).scenario
    rows = swing_share_rows_note([[0.1, 0.05, 0.05, 0.8]], scenario, [0.5, 0.5], "--truths", "t")
    assert rows is None
