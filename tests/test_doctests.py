"""Every public function of the ranking and judging maths carries a runnable example
(moocore's habit); the suite runs them as doctests (``--doctest-modules`` on ``src``)."""

from __future__ import annotations

import importlib
import inspect

import pytest

pytestmark = pytest.mark.core

MODULES = (
    "tradeoff.choose.copa",
    "tradeoff.judge.fronts",
    "tradeoff.judge.indicators",
    "tradeoff.judge.permutation",
    "tradeoff.judge.generalisation",
    "tradeoff.judge.systems",
)


@pytest.mark.parametrize("name", MODULES)
def test_every_public_function_has_an_example(name: str) -> None:
    module = importlib.import_module(name)
    missing = [
        f
        for f, obj in vars(module).items()
        if not f.startswith("_")
        and inspect.isfunction(obj)
        and obj.__module__ == name
        and ">>>" not in (obj.__doc__ or "")
    ]
    assert missing == [], f"{name}: no example in {missing}"
