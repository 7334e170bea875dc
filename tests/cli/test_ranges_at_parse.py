"""The whole-number options whose range ``pool rank``, ``pool from-sklearn``, ``judge
compare``, ``simulate``, ``bench``, ``choices`` and ``elicit`` checked again inside the command
(``--sweep``, ``--folds``, ``--latency-repeats``, ``--permutations``, ``--seed``, ``--runs``,
``--budget``, ``--workers``) are refused as the command line is parsed, just past either
end (:mod:`tradeoff.cli.numbers`): the checks in the commands could not be reached and are
gone; these are what guards the values now. Files named here need not exist: nothing is
read before the value is refused."""

from __future__ import annotations

import pytest

from tradeoff.cli import build_parser, main

pytestmark = pytest.mark.core

RANK = ["pool", "rank", "p.csv", "--objective", "a:max"]
SKLEARN = ["pool", "from-sklearn", "--estimators", "m.py", "--dataset", "iris", "--out", "p.csv"]
COMPARE = ["judge", "compare", "p.csv", "--system", "s", "--objective", "a:max"]
SIMULATE = ["simulate", "s.toml"]
BENCH = ["bench", "elicitation"]
FIT = ["choices", "fit", "c.csv", "--scenario", "s.toml"]
ELICIT = ["elicit"]


@pytest.mark.parametrize(
    ("argv", "value", "said"),
    [
        ([*RANK, "--sweep"], "1", "--sweep: must be from 2 to 100,001, got 1"),
        ([*RANK, "--sweep"], "100002", "--sweep: must be from 2 to 100,001, got 100,002"),
        ([*SKLEARN, "--folds"], "1", "--folds: must be from 2 to 100, got 1"),
        ([*SKLEARN, "--folds"], "101", "--folds: must be from 2 to 100, got 101"),
        ([*SKLEARN, "--latency-repeats"], "0", "--latency-repeats: must be from 1 to 10,000"),
        (
            [*SKLEARN, "--latency-repeats"],
            "10001",
            "--latency-repeats: must be from 1 to 10,000, got 10,001",
        ),
        ([*COMPARE, "--permutations"], "0", "--permutations: must be from 1 to 10,000,000"),
        (
            [*COMPARE, "--permutations"],
            "10000001",
            "--permutations: must be from 1 to 10,000,000, got 10,000,001",
        ),
        ([*COMPARE, "--seed"], "-1", "--seed: must be from 0 to 9,223,372,036,854,775,807"),
        ([*SIMULATE, "--runs"], "0", "--runs: must be from 1 to 1,000,000, got 0"),
        ([*SIMULATE, "--budget"], "10001", "--budget: must be from 1 to 10,000, got 10,001"),
        ([*SIMULATE, "--workers"], "257", "--workers: must be from 1 to 256, got 257"),
        ([*SIMULATE, "--seed"], "-1", "--seed: must be from 0 to"),
        ([*BENCH, "--runs"], "100001", "--runs: must be from 1 to 100,000, got 100,001"),
        ([*FIT, "--seed"], "-1", "--seed: must be from 0 to"),
        ([*ELICIT, "--budget"], "0", "--budget: must be from 1 to 10,000, got 0"),
        (
            [*COMPARE, "--seed"],
            str(2**63),
            "--seed: must be from 0 to 9,223,372,036,854,775,807, got 9,223,372,036,854,775,808",
        ),
    ],
)
def test_out_of_range_is_refused_while_parsing(
    argv: list[str], value: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: tradeoff ") and f"error: argument {said}" in err
    assert "Fix: give " in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "value", "dest"),
    [
        ([*RANK, "--sweep"], "2", "sweep"),
        ([*RANK, "--sweep"], "100001", "sweep"),
        ([*SKLEARN, "--folds"], "100", "folds"),
        ([*SKLEARN, "--latency-repeats"], "10000", "latency_repeats"),
        ([*COMPARE, "--permutations"], "10000000", "permutations"),
        ([*COMPARE, "--seed"], str(2**63 - 1), "seed"),
        ([*SIMULATE, "--runs"], "1000000", "runs"),
        ([*SIMULATE, "--workers"], "256", "workers"),
        ([*BENCH, "--runs"], "100000", "runs"),
        ([*ELICIT, "--budget"], "10000", "budget"),
    ],
)
def test_either_end_is_taken(argv: list[str], value: str, dest: str) -> None:
    assert getattr(build_parser().parse_args([*argv, value]), dest) == int(value)
