"""The one per-source limiter (:class:`tradeoff.web.limiter.PerSource`): its caps against
a plain count, memory that follows what is held, and every throttle of the page using it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.web.limiter import PerSource, Throttles

pytestmark = pytest.mark.core

WEB = Path(__file__).parents[2] / "src" / "tradeoff" / "web"


@settings(max_examples=200, deadline=None)
@given(
    each=st.integers(1, 4),
    extra=st.integers(0, 6),
    steps=st.lists(
        st.tuples(st.sampled_from(["take", "past", "back"]), st.integers(0, 5)), max_size=60
    ),
)
def test_caps_match_a_plain_count(each: int, extra: int, steps: list[tuple[str, int]]) -> None:
    total = each + extra
    limiter = PerSource(each, total)
    held: dict[str, int] = {}  # the brute-force model
    for what, n in steps:
        source = f"10.0.0.{n}"
        mine, everyone = held.get(source, 0), sum(held.values())
        if what == "back":
            if mine == 0:
                with pytest.raises(ValueError, match="holds nothing"):
                    limiter.give_back(source)
                continue
            limiter.give_back(source)
            held[source] = mine - 1
        else:
            past = what == "past"
            allowed = everyone < total and (past or mine < each)
            assert limiter.take(source, past_each=past) is allowed
            if allowed:
                held[source] = mine + 1
        held = {s: k for s, k in held.items() if k}
        assert limiter.sources == len(held) <= total  # only sources holding something
        for s in held:
            assert limiter.held(s) == held[s]
            assert limiter.full(s) is (held[s] >= each or sum(held.values()) >= total)


def test_memory_does_not_grow_with_history() -> None:
    limiter = PerSource(2, 8)
    for n in range(10_000):
        with limiter.holding(f"source-{n}") as taken:
            assert taken
            assert limiter.sources == 1
    assert limiter.sources == 0


def test_holding_gives_back_on_error() -> None:
    limiter = PerSource(1, 1)
    with pytest.raises(RuntimeError), limiter.holding("a"):
        raise RuntimeError
    assert limiter.take("a")


def test_bad_caps_refused() -> None:
    with pytest.raises(ValueError, match="each"):
        PerSource(3, 2)


def test_every_throttle_counts_through_the_one_limiter() -> None:
    """No module of the page keeps a hand-written count per source: the only counts are
    :class:`Throttles`' limiters (the site's ``throttles``)."""
    throttles = Throttles()
    assert isinstance(throttles.requests, PerSource)
    assert isinstance(throttles.checked, PerSource)
    for path in sorted(WEB.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            # site.checking.get(source, 0) + 1, site.in_flight[source] -= 1, ...
            if isinstance(node, ast.Attribute) and node.attr in {"checking", "in_flight"}:
                pytest.fail(f"{path.name}:{node.lineno}: a count per source of its own")
