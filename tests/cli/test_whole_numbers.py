"""Whole-number options (``--cap``, ``--runs``, ``--seed``, …) are read by one type function
(:mod:`tradeoff.cli.numbers`): a word or a number out of the option's meaning is refused in
argparse's format (usage line, ``error: argument --X: …``, exit 2) saying what the option
means, what it allows and an example."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from tradeoff.cli import build_parser, main

pytestmark = pytest.mark.core


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def test_no_option_is_read_with_bare_int() -> None:
    bare = [
        f"{p.prog} {'/'.join(a.option_strings)}"
        for p in _parsers(build_parser())
        for a in p._actions
        if a.type is int
    ]
    assert bare == []


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["study", "create", "x", "--study", "s", "--cap", "abc"],
            "argument --cap: 'abc' is not a whole number. Fix: give how many people may take "
            "part, from 1 to 10,000, e.g. --cap 300",
        ),
        (
            ["study", "create", "x", "--study", "s", "--cap", "0"],
            "argument --cap: must be from 1 to 10,000, got 0. Fix: give how many people may "
            "take part, e.g. --cap 300",
        ),
        (["study", "create", "x", "--study", "s", "--cap", "-5"], "got -5"),
        (["study", "create", "x", "--study", "s", "--consent-within", "0"], "minutes"),
        (["simulate", "x", "--seed", "-1"], "argument --seed: must be from 0 to"),
        (["simulate", "x", "--seed", "1.5"], "'1.5' is not a whole number"),
        (["simulate", "x", "--runs", "0"], "how many simulated people answer"),
        (["simulate", "x", "--budget", "ten"], "the most questions a simulated person is asked"),
        (["simulate", "x", "--workers", "0"], "argument --workers: must be from 1 to 256"),
        (["study", "serve", "s", "--workers", "x"], "how many server processes"),
        (["study", "serve", "s", "--port", "-1"], "the port to listen on"),
        (["simulate", "x", "--runs", "1_000"], "'1_000' is not a whole number"),
        (["pool", "rank", "p.csv", "--top", "0"], "argument --top: must be at least 1, got 0"),
        (["judge", "compare", "p.csv", "--system", "s", "--permutations", "0"], "permutations"),
        (["choices", "fit", "t.csv", "--scenario", "x", "--seed", "-3"], "the posterior"),
        (["elicit", "--budget", "0"], "how many questions to ask"),
    ],
)
def test_a_bad_whole_number_says_what_the_option_wants(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: tradeoff ")
    assert said in err
    assert "invalid int value" not in err and "Traceback" not in err


def test_a_good_whole_number_is_read() -> None:
    args = build_parser().parse_args(["simulate", "x", "--runs", " 12 ", "--seed", "0"])
    assert (args.runs, args.seed) == (12, 0)
