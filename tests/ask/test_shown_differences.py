"""A difference a person reads is the difference of the two numbers they read: the cards'
"0.2 ms more" and the sentences' "$0.01 more cost" come from the numbers as each format
shows them, not from the numbers behind them ("0.3 ms" against "0.1 ms" once read
"0.1 ms more"; "$0.21" against "$0.20", "$0.02 more")."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.queries import ClassifierProfile
from tradeoff.ask.scenario import Scenario
from tradeoff.ask.shown import attribute_line, card_lines
from tradeoff.ask.words import difference_words

from ..conftest import scenario

pytestmark = pytest.mark.core

SHIPPED = [
    scenario(name)
    for name in ("breast-cancer-triage", "glaucoma-screening", "llm-leaderboard", "train-trips")
]
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _read(text: str) -> Decimal:
    """The first number a text shows, exactly as written."""
    found = NUMBER.search(text)
    assert found is not None, text
    return Decimal(found.group().replace(",", ""))


@st.composite
def two_values(draw: st.DrawFn) -> tuple[Scenario, int, float, float]:
    sc = draw(st.sampled_from(SHIPPED))
    j = draw(st.integers(0, len(sc.attributes) - 1))
    lo, hi = sc.attributes[j].range
    values = st.floats(lo, hi, allow_nan=False)
    return sc, j, draw(values), draw(values)


def _profiles(sc: Scenario, j: int, a: float, b: float) -> tuple[ClassifierProfile, ...]:
    out = []
    for v in (a, b):
        attributes = [spec.range[0] for spec in sc.attributes]
        attributes[j] = v
        k = sc.n_classes
        out.append(ClassifierProfile((0.5,) * k, (0.9,) * k, tuple(attributes)))
    return tuple(out)


@given(case=two_values())
def test_a_difference_is_the_one_between_the_numbers_shown(
    case: tuple[Scenario, int, float, float],
) -> None:
    """On the card ("0.2 ms more") and in a sentence ("0.2 ms more latency")."""
    sc, j, a, b = case
    mine, other = _profiles(sc, j, a, b)
    line = card_lines(sc, mine, other)[sc.n_classes + j]
    said = difference_words(
        sc, [*mine.recalls, *mine.attributes], [*other.recalls, *other.attributes]
    )
    shown_a, shown_b = _read(attribute_line(sc, j, a)), _read(attribute_line(sc, j, b))
    if shown_a == shown_b:
        assert not line.differs and line.delta == "" and said == []
        return
    assert line.differs
    assert _read(line.delta) == abs(shown_a - shown_b), (line.text, line.delta)
    assert line.delta.split()[-1] in (("more",) if shown_a > shown_b else ("less", "fewer"))
    (phrase,) = said
    assert _read(phrase) == abs(shown_a - shown_b), (line.text, phrase)


def test_the_two_cases_once_read_wrong() -> None:
    triage, glaucoma = SHIPPED[0], SHIPPED[1]
    mine, other = _profiles(triage, 0, 0.26, 0.14)  # "0.3 ms" against "0.1 ms"
    assert card_lines(triage, mine, other)[2].delta == "0.2 ms more"
    said = difference_words(glaucoma, [0.9, 0.84, 0.214, 5.0], [0.9, 0.84, 0.196, 5.0])
    assert said == ["$0.01 more cost"]  # "$0.21" against "$0.20"
    assert difference_words(glaucoma, [0.9, 0.84, 0.2149, 5.0], [0.9, 0.84, 0.2051, 5.0]) == []
