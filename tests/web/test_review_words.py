"""The study's review page says "not asked" of a weight no answer informed (no number, no
meter), puts the settled and the unsettled trade-offs under headings true of each, and
says how sure a settled pick is without claiming certainty."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest

from tradeoff.record.recorder import Recorder
from tradeoff.web.i18n import languages
from tradeoff.web.pages import chance_words, review_view

from ..conftest import three_answers_one_unasked

pytestmark = pytest.mark.core

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "tradeoff" / "web" / "templates"


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    """Three questions answered of three, the last weights never shown apart."""
    with three_answers_one_unasked(tmp_path, "p01") as rec:
        yield rec


def render(view: object) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        undefined=jinja2.StrictUndefined,
    )
    env.install_gettext_translations(languages()["en"].translations, newstyle=True)  # type: ignore[attr-defined]
    return env.get_template("review.html").render(
        lang="en", page_title="t", study_title="s", contact=None, csrf="c", **vars(view)
    )


def test_a_weight_not_asked_has_no_number_and_no_meter(recorder: Recorder) -> None:
    scenario = recorder.engine.scenario
    view = review_view(recorder, scenario, languages()["en"])
    asked = recorder.engine.result().asked
    assert asked is not None
    for weight, informed in zip(view.weights, asked, strict=True):
        assert weight.asked is informed
        if not informed:
            assert weight.value == "not asked: your questions never varied it"
            assert weight.range == "" and "%" not in weight.value
    html = render(view)
    assert html.count("<meter") == sum(asked)
    assert html.count("not asked: your questions never varied it") == asked.count(False)
    assert "Not settled by your answers:" not in html  # the heading says it, once
    if view.unsettled:
        assert "<h2>Not settled by your answers yet</h2>" in html
        tail = html.split("Not settled by your answers yet", 1)[1]
        assert all(s in tail for s in view.unsettled)
    if view.settled:
        head = html.split("Trade-offs your answers say you would make", 1)[1]
        head = head.split("Not settled by your answers yet", 1)[0]
        assert all(s in head for s in view.settled)
        assert not any(s in head for s in view.unsettled)


def test_chances_on_the_page_never_claim_certainty() -> None:
    en = languages()["en"]
    assert [chance_words(p, en) for p in (1.0, 0.9996, 0.5, 0.001)] == [
        "over 99%",
        "over 99%",
        "50%",
        "under 1%",
    ]
    assert re.search(r"100", chance_words(1.0, en)) is None


def test_a_share_under_one_percent_is_said_so_with_its_range(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A share of 0.6 % whose 90 % range is 0.1–0.4 % read "1% (90% range 0%–0%)", the
    share outside its own range: both are now said as under 1 %, in English and German; a
    range that reaches past 1 % keeps its numbers."""
    from tradeoff.learn.shares import Shares

    engine = recorder.engine
    n = len(engine.scenario.weight_names)
    values = (0.006, 0.004, *[(1 - 0.01) / (n - 2)] * (n - 2))
    intervals = ((0.001, 0.004), (0.0, 0.03), *[(0.2, 0.6)] * (n - 2))
    monkeypatch.setattr(type(engine), "shares", lambda self: Shares(values, intervals))
    en = review_view(recorder, engine.scenario, languages()["en"]).weights
    assert (en[0].value, en[0].range) == ("under 1%", "90% range under 1%")
    assert (en[1].value, en[1].range) == ("under 1%", "90% range 0%–3%")
    assert en[2].value.endswith("%") and en[2].value != "under 1%"
    de = review_view(recorder, engine.scenario, languages()["de"]).weights
    assert (de[0].value, de[0].range) == (
        "unter 1\u00a0%",
        "mit 90\u00a0% Wahrscheinlichkeit unter 1\u00a0%",
    )


def test_the_shares_add_up_to_100(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shares of 60.86, 36.74, 1.58 and 0.82 % each rounded read 61 + 37 + 2 + 1 = 101 %
    beside "add up to 100%": they are said as parts of one whole, 61 + 37 + 1 + 1."""
    from tradeoff.learn.shares import Shares

    engine = recorder.engine
    values = (0.6086, 0.3674, 0.0158, 0.0082)
    assert len(engine.scenario.weight_names) == len(values)
    monkeypatch.setattr(type(engine), "shares", lambda self: Shares(values, (None,) * 4))
    shown = [w.value for w in review_view(recorder, engine.scenario, languages()["en"]).weights]
    assert shown == ["61%", "37%", "1%", "under 1%"]
