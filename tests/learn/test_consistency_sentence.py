"""The consistency check says the repeats' count and the engine's estimate of a slip as two
things: the estimate comes from every answer, so it need not follow the repeats (2 of 4
repeats answered alike read "(estimated chance of a slip: 7%)" in the same sentence, beside
"(… 9%)" for 2 of 2, as if the repeats had given it)."""

from __future__ import annotations

import pytest

from tradeoff.learn.engine import Consistency
from tradeoff.web.i18n import languages

pytestmark = pytest.mark.core


def test_the_repeats_and_the_estimate_from_every_answer_are_two_sentences() -> None:
    said = Consistency(14, (2, 4), 0.07, None).sentence()
    assert said == (
        "Consistency check: 2 of 4 repeated questions were answered the same way both times. "
        "From all 14 answers, the chance that any one of them is a slip is estimated at 7%."
    )
    one = Consistency(1, (1, 1), 0.3, None)
    assert "From the 1 answer, the chance that it is a slip is estimated at 30%." in one.sentence()
    assert "contradict each other too often" in one.sentence()  # 30 % fails the check


def test_german_says_both_sentences_in_german() -> None:
    said = Consistency(14, (2, 4), 0.07, None).sentence(languages()["de"].words())
    assert said.startswith("Konsistenzprüfung: 2 von 4 wiederholten Fragen wurden")
    assert "Aus allen 14 Antworten geschätzt" in said and "7 %" in said
    assert "estimated" not in said and "answers" not in said
