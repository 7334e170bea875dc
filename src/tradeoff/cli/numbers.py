"""Whole-number options: the one type function every ``--cap``, ``--runs``, ``--seed``, …
of the command line is read with (:func:`whole`).

A value that is not a whole number, or lies outside what the option means (a cap of 0, a
negative seed), is refused while the command line is parsed, as argparse refuses any
option: the command's usage line, then ``error: argument --cap: …`` with what the option
means, what it allows and an example, and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from importlib import import_module

SEED_MAX = 2**63 - 1
"""The largest seed: numpy takes any whole number ≥ 0; a seed is also written into JSON
and run records, where a signed 64-bit integer is what every reader keeps exactly."""

Bound = int | tuple[str, str]
"""A bound: a number, or (module, name) of a constant kept in a module that building the
parser must not import (read only when a value is checked)."""


def _bound(bound: Bound | None) -> int | None:
    if bound is None or isinstance(bound, int):
        return bound
    module, name = bound
    value = getattr(import_module(module), name)
    assert isinstance(value, int)
    return value


def allowed(low: int | None, high: int | None) -> str:
    """What a whole-number option allows, in words.

    >>> allowed(1, 10_000), allowed(1, None), allowed(None, None)
    ('from 1 to 10,000', 'at least 1', 'any whole number')
    """
    if low is not None and high is not None:
        return f"from {low:,} to {high:,}"
    if low is not None:
        return f"at least {low:,}"
    if high is not None:
        return f"at most {high:,}"
    return "any whole number"


def whole(
    option: str,
    meaning: str,
    example: int,
    low: Bound | None = 1,
    high: Bound | None = None,
) -> Callable[[str], int]:
    """The type function of a whole-number option: ``--cap`` reads ``"300"`` as 300, and
    refuses, in argparse's own format, what is not a whole number or lies outside
    [``low``, ``high``].

    Parameters
    ----------
    option
        The option's name as typed, e.g. ``"--cap"``.
    meaning
        What the number says, completing "give …", e.g. ``"how many people may take part"``.
    example
        A sensible value, shown in the fix.
    low, high
        The smallest and largest value that makes sense (``None``: no bound).

    Examples
    --------
    >>> cap = whole("--cap", "how many people may take part", 300, 1, 10_000)
    >>> cap(" 300 ")
    300
    >>> cap("abc")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'abc' is not a whole number. Fix: give how many people may take part, from 1 to 10,000, e.g. --cap 300
    >>> cap("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be from 1 to 10,000, got 0. Fix: give how many people may take part, e.g. --cap 300
    """  # noqa: E501

    def read(text: str) -> int:
        lowest, highest = _bound(low), _bound(high)
        span = allowed(lowest, highest)
        try:
            if "_" in text:  # 1_000 is Python's spelling, not a person's
                raise ValueError(text)
            value = int(text.strip())
        except ValueError:
            shown = text if len(text) <= 40 else text[:40] + "…"
            raise argparse.ArgumentTypeError(
                f"{shown!r} is not a whole number. Fix: give {meaning}, {span}, "
                f"e.g. {option} {example}"
            ) from None
        if (lowest is not None and value < lowest) or (highest is not None and value > highest):
            got = (
                f"{value:,}" if abs(value) < 10**30 else "a number of " + str(len(text)) + " digits"
            )
            raise argparse.ArgumentTypeError(
                f"must be {span}, got {got}. Fix: give {meaning}, e.g. {option} {example}"
            )
        return value

    read.__name__ = option.lstrip("-").replace("-", "_")  # argparse names a type by it
    return read


def seed_of(what: str) -> Callable[[str], int]:
    """A ``--seed`` option: a whole number from 0 to :data:`SEED_MAX`; ``what`` says what
    it seeds ("the simulation")."""
    return whole("--seed", f"the seed of {what} (the same seed, the same result)", 42, 0, SEED_MAX)


def top(what: str) -> Callable[[str], int]:
    """A ``--top`` option: how many ranked models to show, at least 1."""
    return whole("--top", f"how many ranked {what} to show", 10, 1)
