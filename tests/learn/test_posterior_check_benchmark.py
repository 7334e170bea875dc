"""``benchmarks.posterior_check`` draws the examples the brute-force test draws, counts the
errors beyond the test's bounds, and runs end to end."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.posterior_check import FOUND, examples, main, row_of

from .test_joint import P_BEST_TOLERANCE, QUANTILE_TOLERANCE, trade_off

pytestmark = pytest.mark.core


def test_examples_are_the_tests_kind_and_repeat_from_their_seed() -> None:
    for family in ("random", "round"):
        drawn = examples(family, 20)
        assert drawn == examples(family, 20)
        for rows, answers, seed in drawn:
            assert 2 <= len(rows) <= 5 and 1 <= len(answers) <= 6 and 0 <= seed <= 1000
            for left, right, outcome in answers:
                assert trade_off((left, right)) and outcome in (0, 1, 2)
            for r in [*rows, *(x for a in answers for x in a[:2])]:
                assert 0.15 <= r[0] <= 0.3 and 0.35 <= r[1] <= 0.7 and -1.0 <= r[2] <= 0.0
    values = np.array([r for rows, _, _ in examples("round", 20) for r in rows])
    assert np.all(values * 16 == np.round(values * 16))  # on the lattice
    assert examples("random", 5) != examples("round", 5)
    for _, answers in FOUND:
        assert all(trade_off((a[0], a[1])) for a in answers)


def test_a_row_counts_what_lies_beyond_each_bound() -> None:
    measured = [(P_BEST_TOLERANCE + 0.01, 0.0), (0.0, QUANTILE_TOLERANCE + 0.01), (0.0, 0.0)]
    row = row_of("x", measured)
    assert row[:2] == ["x", 3]
    assert row[5] == "1 (33.3%)" and row[9] == "1 (33.3%)"
    assert row[4] == f"{P_BEST_TOLERANCE + 0.01:.3f}"


def test_the_benchmark_runs_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--examples", "2", "--seeds", "1", "--grid", "40", "--shipped-examples", "1"]
    assert main([*argv, "--workers", "1", "--no-write"]) == 0
    out = capsys.readouterr().out
    for name in ("| random | 2 |", "| round | 2 |", "| found 1 | 1 |", "| found 2 | 1 |"):
        assert name in out
    for name in ("| random, shipped grid | 1 |", "| found 1, shipped grid | 1 |"):
        assert name in out
