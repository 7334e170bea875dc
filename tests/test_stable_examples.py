"""The examples of :mod:`tradeoff.stable` (the helpers that keep a result the same on every
machine) run as a test of their own, so that ``make test-other-path`` (``-m other_path``)
runs them on another numeric path too; ``--doctest-modules`` runs them in the core."""

from __future__ import annotations

import doctest

import pytest

import tradeoff.stable

pytestmark = [pytest.mark.core, pytest.mark.other_path]


def test_the_examples_of_stable_hold() -> None:
    result = doctest.testmod(tradeoff.stable, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} examples of tradeoff.stable fail (above)"
