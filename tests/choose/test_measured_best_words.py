"""The sentence that says why the pick is not the model that measured best never reads
"more likely" beside two chances that read the same (a pick at 18 % was said to be "more
likely the best" than a model shown at 18 %): then the pick is "about as likely", in
English and German, with and without the cases each was measured on."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.choose.measurement_words import chance, measured_best_sentence
from tradeoff.text import Voice
from tradeoff.web.i18n import languages

pytestmark = pytest.mark.core

WORDS = {tag: language.words() for tag, language in languages().items()}
MORE = {"en": "more likely", "de": "wahrscheinlicher"}
SAME = {"en": "about as likely", "de": "etwa ebenso wahrscheinlich"}
CASES = st.sampled_from([(None, None), (100, 300), (300, 100)])


@given(
    p=st.floats(0.0, 1.0),
    gap=st.floats(0.0, 0.2),
    cases=CASES,
    tag=st.sampled_from(sorted(MORE)),
    named=st.booleans(),
)
def test_more_likely_only_beside_chances_that_differ(
    p: float, gap: float, cases: tuple[int | None, int | None], tag: str, named: bool
) -> None:
    tag = "en" if named else tag  # a named person is spoken of in English (Voice.say)
    words = WORDS[tag]
    other = max(0.0, p - gap)
    voice = Voice("dr-kim") if named else Voice()
    text = measured_best_sentence("m9", p, "m10", other, cases, voice, words)
    shown_p, shown_q = chance(p, words), chance(other, words)
    assert "%(" not in text
    if shown_p == shown_q:
        assert SAME[tag] in text and MORE[tag] not in text
        assert text.count(shown_p) == 1
    else:
        assert MORE[tag] in text and SAME[tag] not in text
        assert shown_p in text and shown_q in text
    fewer = cases[0] is not None and cases[1] is not None and cases[0] < cases[1]
    assert bool(re.search(r"\b100\b.*\b300\b", text)) == fewer


def test_the_case_the_app_showed() -> None:
    """m9 at 18.04 % and m10 at 17.96 % of the plausible measurements."""
    text = measured_best_sentence("m9", 0.1804, "m10", 0.1796, (40, 1000))
    assert text == (
        "m10 measured best by what your answers say matters to you, but on fewer cases "
        "(40 against 1,000); m9 is about as likely the best once the measurement noise is "
        "counted (18% each)."
    )
    german = measured_best_sentence("m9", 0.1804, "m10", 0.1796, (40, 1000), words=WORDS["de"])
    assert "etwa ebenso wahrscheinlich" in german and "je 18" in german
