"""``simulate --truths FILE`` takes weights per unit, one person a row, as ``--truth`` does;
rows that look like the swing shares pick prints were simulated without a word, while the
same numbers given as ``--truth`` got the note (:mod:`tradeoff.cli.per_unit`). Now one
note says how many rows look so, the first of them, and what to give instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.ask.population import scenario_priors
from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.cli.per_unit import swing_share_note, swing_share_rows_note

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core

SHARES = "31.8,59.1,7.1,2.0"  # swing shares in % (glaucoma: wait 0–19 min)
PER_UNIT = "0.802,0.166,0.0325,0.000265"  # session show's weights per unit for them


def _simulate(
    tmp_path: Path, rows: list[str], capsys: pytest.CaptureFixture[str], header: bool = True
) -> str:
    scenario = small_scenario_file(tmp_path)
    names = load_scenario(scenario).scenario.weight_names
    truths = tmp_path / "truths.csv"
    truths.write_text("\n".join(([",".join(names)] if header else []) + rows) + "\n")
    assert main(["simulate", str(scenario), "--truths", str(truths), "--budget", "2"]) == 0
    return " ".join(capsys.readouterr().err.split())


def test_rows_of_swing_shares_are_noted_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _simulate(tmp_path, [PER_UNIT, SHARES, SHARES], capsys)
    assert err.count("note: --truths takes weights per unit") == 1
    assert "one person a row" in err and "wait per min" in err
    assert f"In {tmp_path / 'truths.csv'} the weights of 2 of the 3 people look like" in err
    assert "those of person 2 (row 2 of weights, after any header: 31.8, 59.1, 7.1, 2, in %)" in err
    assert "give wait 39% of the weight over its whole range though it was given 2.0%" in err
    instead = err.split("(person 2: ")[1].split(")")[0]
    assert [float(x) for x in instead.split(",")] == pytest.approx(
        [float(x) for x in PER_UNIT.split(",")], rel=0.03
    )


def test_every_row_and_one_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "the weights of all 2 people look like" in _simulate(
        tmp_path, [SHARES, "0.318,0.591,0.071,0.02"], capsys, header=False
    )
    assert "the one person's weights look like" in _simulate(tmp_path, [SHARES], capsys)


def test_rows_of_weights_per_unit_get_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "per unit" not in _simulate(tmp_path, [PER_UNIT, PER_UNIT], capsys)


def test_the_rows_are_read_as_truth_reads_one(tmp_path: Path) -> None:
    """A row is noted exactly when the same numbers given as --truth are."""
    scenario = load_scenario(small_scenario_file(tmp_path)).scenario
    priors = scenario_priors(scenario)
    for given in ([31.8, 59.1, 7.1, 2.0], [0.802, 0.166, 0.0325, 0.000265], [3.0, 5.0, 1.0, 2.0]):
        one = swing_share_note(given, scenario, priors, "--truth")
        rows = swing_share_rows_note([given], scenario, priors, "--truths", "t.csv")
        assert (one is None) == (rows is None)
