"""A pick that is not the likeliest best says why where its probability is said: it
maximises the expected value of the person's metric, not P(best) ("recommended trial-17
(probability it is the best: 28%)" stood beside trial-3's 36% without a word)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tradeoff.choose.decide import Decision, decide
from tradeoff.choose.pick_text import selection_text
from tradeoff.choose.recommend import Recommendation
from tradeoff.choose.report import summary, write_report
from tradeoff.choose.words import LIKELIER, likeliest_words, plain_summary

pytestmark = pytest.mark.e2e

EXAMPLE = next(Path("sessions/examples/example-oncologist").glob("*.jsonl"))


@given(
    p=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6),
    pick=st.integers(0, 5),
)
@example(p=[0.0, 0.9999999999999999, 1.0], pick=0)  # equal once rounded: m1, the first
def test_said_exactly_when_another_model_is_likelier(p: list[float], pick: int) -> None:
    """By brute force: the sentence is there iff some other model's P(best) exceeds the
    pick's by LIKELIER or more, and it names the likeliest other (the first of equals; of
    values within a billionth of each other, the first after the rounding every machine
    shares, :func:`~tradeoff.stable.stable_argmax`: here any of them)."""
    pick %= len(p)
    names = [f"m{i}" for i in range(len(p))]
    rec = Recommendation(names[pick], pick, tuple(0.0 for _ in p), tuple(p), None, "")
    said = likeliest_words(rec, names)
    others = [(x, i) for i, x in enumerate(p) if i != pick]
    best = max(x for x, _ in others)
    first = min(i for x, i in others if x == best)
    near = {i for x, i in others if x >= best - 1e-9}  # equal once rounded, or nearly
    if best >= p[pick] + LIKELIER + 1e-9:
        named = said.split(" is more often the best", 1)[0]
        assert named == f"m{first}" or (named[1:].isdigit() and int(named[1:]) in near), said
        assert f"but m{pick} is recommended because it has the highest expected value" in said
    elif best < p[pick] + LIKELIER - 1e-9:
        assert said == ""


@pytest.fixture(scope="module")
def likelier_elsewhere() -> Decision:
    """The example oncologist's decision with P(best) moved so that the runner-up by
    expected value is the likeliest best (36% against the pick's 28%)."""
    decision = decide([EXAMPLE])
    rec = decision.recommendations[0]
    order = np.argsort(-np.asarray(rec.expected))
    second = int(order[1])
    p = np.zeros(len(rec.expected))
    p[order[2:]] = 0.36 / max(1, len(order) - 2)
    p[rec.index], p[second] = 0.28, 0.36
    moved = replace(rec, p_best=tuple(float(x) for x in p))
    selection = replace(decision.selection, recommendations=[moved])
    return replace(decision, selection=selection)


def test_every_face_says_why_the_pick_is_not_the_likeliest(
    likelier_elsewhere: Decision, tmp_path: Path
) -> None:
    decision = likelier_elsewhere
    rec = decision.selection.recommendations[0]
    other = decision.pool.names[int(np.argsort(-np.asarray(rec.expected))[1])]
    said = f"{other} is more often the best (36%, against 28%), but {rec.name} is recommended"
    assert said in selection_text(decision.selection)
    assert said in "\n".join(plain_summary(decision.selection))
    assert said in summary(decision.selection)
    _, md = write_report(decision, tmp_path / "report", argv=["report"])
    assert md.read_text().count(said) == 2  # the summary and the person's section


def test_nothing_is_said_when_the_pick_is_the_likeliest() -> None:
    decision = decide([EXAMPLE])
    text = selection_text(decision.selection)
    assert "is more often the best" not in text
