"""The examples of :mod:`tradeoff.stable` (the helpers that keep a result the same on every
machine) run as a test of their own, so that ``make test-other-path`` (``-m other_path``)
runs them on another numeric path too; ``--doctest-modules`` runs them in the core."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import tradeoff.stable

pytestmark = [pytest.mark.core, pytest.mark.other_path]


def test_the_examples_of_stable_hold() -> None:
    result = doctest.testmod(tradeoff.stable, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} examples of tradeoff.stable fail (above)"


def test_canonical_text_kept_per_value_is_the_text_written_afresh() -> None:
    """:func:`~tradeoff.stable.canonical` keeps the text of every value it wrote (the
    options of the questions repeat most values): the text of a value kept is the text of
    the formula, for 0 and −0, the residue of a cancellation, nan, inf and values in every
    decade, each asked twice and after the memo was emptied."""
    from tradeoff import stable

    rng = np.random.default_rng(0)
    values = [0.0, -0.0, 1e-17, -3e-300, float("nan"), float("inf"), -float("inf"), 0.1 + 0.2]
    values += (rng.normal(size=200) * 10.0 ** rng.integers(-14, 14, size=200)).tolist()

    def afresh(v: float) -> str:
        return "0" if abs(v) < stable.TINY else f"{v:.{stable.DIGITS}g}"

    expected = ",".join(afresh(v) for v in values)
    stable._TEXTS.clear()
    assert stable.canonical(values) == expected
    assert len(stable._TEXTS) > 100  # kept
    assert stable.canonical(values) == expected  # read from the memo
    assert stable.canonical(np.asarray(values)) == expected
    assert stable.canonical(values[:3], 3) == "0,0,0"
    stable._TEXTS.clear()
    assert stable.canonical(values) == expected
