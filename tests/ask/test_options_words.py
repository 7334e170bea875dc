"""Options described by their aspects alone are called options, never models that were
measured: the question's prompt and card titles, in English and German, the app's result
and the noun the faces share."""

from __future__ import annotations

import pytest

from tradeoff.ask.queries import ClassifierProfile, Query
from tradeoff.ask.words import candidates_noun, option_title, question_prompt
from tradeoff.choose.recommend import Recommendation

from ..conftest import scenario

pytestmark = pytest.mark.core


def _candidates() -> Query:
    p = ClassifierProfile((), (), (20.0, 100.0, 0.0, 1.0))
    return Query(p, p, (0, 0), (0.0, 0.0), kind="candidates", candidates=(1, 2))


@pytest.mark.parametrize("locale", ["en", "de"])
def test_real_options_are_not_called_measured_models(locale: str) -> None:
    from tradeoff.web.i18n import languages  # the page's catalogue: German as it is shown

    words = languages()[locale].words()
    query = _candidates()
    said = [question_prompt(query, words, True)]
    said += [option_title(query, side, words, True) for side in (0, 1)]
    for text in said:
        assert "model" not in text.lower() and "measured" not in text, text
        assert "gemessen" not in text and "Kandidatenmodell" not in text, text
    classifiers = question_prompt(query, words, False)
    assert ("measured" in classifiers) if locale == "en" else ("gemessen" in classifiers)


def test_the_noun_follows_the_scenario() -> None:
    trips, triage = scenario("train-trips"), scenario("breast-cancer-triage")
    assert [candidates_noun(trips), candidates_noun(trips, plural=False)] == ["options", "option"]
    assert candidates_noun(triage) == "candidate models"


def test_the_result_screen_says_options() -> None:
    from tradeoff.tui.screens.result import recommendation_text

    advice = Recommendation("IC direct", 0, (1.0, 0.5), (1.0, 0.0), "stopping", "")
    said = recommendation_text(advice, 5, noun=candidates_noun(scenario("train-trips"))).plain
    assert "Of the 5 options, it is the one your answers make best." in said, said
