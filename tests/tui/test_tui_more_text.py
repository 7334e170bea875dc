"""The footer's "pgdn More text" on the screens whose text scrolls above a form or buttons
(the start screen, a study's start and consent, the review): it stayed after the text was
read to its end, and showed when all of it fit. It shows only while more text lies below,
at 80×24 and at 140×45; and at a study's shared terminal Esc no longer closes the app."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Input

from tradeoff.study.folder import create_study
from tradeoff.tui import make_app
from tradeoff.tui.consent import ConsentScreen
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.tui.screens.start import StartScreen, StudyStartScreen

from ..conftest import SCENARIOS, small_scenario_file
from .test_tui import _show_review, pool_app, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]

SIZES = [(80, 24), (140, 45)]


def study_scenario(tmp_path: Path) -> Path:
    """The default scenario (its long description) with its pool beside it, for a study."""
    (tmp_path / "pools").mkdir()
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", tmp_path / "pools")
    return small_scenario_file(tmp_path, "breast-cancer-triage")


async def footer_shows(pilot: Pilot[Any], key: str, expected: bool) -> bool:
    """Whether the footer shows ``key``, read once it does as ``expected`` (it recomposes
    after a refresh) or after five seconds."""
    from textual.widgets._footer import FooterKey

    shown = not expected
    for _ in range(100):
        await pilot.pause(0.05)
        keys = [str(k.description) for k in pilot.app.screen.query(FooterKey)]
        shown = key in keys
        if keys and shown is expected:
            break
    return shown


async def more_text_while_more_below(pilot: Pilot[Any], body: VerticalScroll) -> None:
    """ "More text" in the footer as long as the text runs on below the rows in view: not
    once page down has brought its end into view, and back after page up."""
    fits = body.max_scroll_y == 0
    assert await footer_shows(pilot, "More text", not fits) is not fits
    for _ in range(20):
        if body.scroll_offset.y >= body.max_scroll_y:
            break
        await pilot.press("pagedown")
        await pilot.wait_for_scheduled_animations()
    assert body.scroll_offset.y == body.max_scroll_y
    assert not await footer_shows(pilot, "More text", False)
    if not fits:
        await pilot.press("pageup")
        await pilot.wait_for_scheduled_animations()
        assert await footer_shows(pilot, "More text", True)


@pytest.mark.parametrize("size", SIZES)
async def test_the_start_screen_offers_more_text_only_while_there_is_more(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = pool_app(tmp_path, participant=None)  # the real, long description
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, StartScreen)
        body = pilot.app.screen.query_one("#start-body", VerticalScroll)
        assert (body.max_scroll_y > 0) is (size == (80, 24))
        await more_text_while_more_below(pilot, body)


@pytest.mark.parametrize("size", SIZES)
async def test_the_study_start_offers_more_text_only_while_there_is_more(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    study, _ = create_study(study_scenario(tmp_path), ["p01"], tmp_path / "study")
    app = make_app(study.scenario_path, study=study)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, StudyStartScreen)
        body = pilot.app.screen.query_one("#start-body", VerticalScroll)
        assert (body.max_scroll_y > 0) is (size == (80, 24))
        await more_text_while_more_below(pilot, body)


@pytest.mark.parametrize("size", SIZES)
async def test_the_consent_offers_more_text_only_while_there_is_more(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    consent = tmp_path / "information.md"
    consent.write_text("# About the study\n\n" + "You may stop at any time.\n\n" * 10)
    study, codes = create_study(
        study_scenario(tmp_path), ["p01"], tmp_path / "study", consent=consent
    )
    app = make_app(study.scenario_path, study=study)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, StudyStartScreen)
        pilot.app.screen.query_one("#code", Input).value = codes["p01"]
        await pilot.press("enter")
        await wait_for(pilot, ConsentScreen)
        body = pilot.app.screen.query_one("#consent-body", VerticalScroll)
        assert (body.max_scroll_y > 0) is (size == (80, 24))
        await more_text_while_more_below(pilot, body)


@pytest.mark.parametrize("size", SIZES)
async def test_the_review_offers_more_text_only_while_there_is_more(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = pool_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await _show_review(pilot)
        assert isinstance(pilot.app.screen, ReviewScreen)
        body = pilot.app.screen.query_one("#review-body", VerticalScroll)
        assert (body.max_scroll_y > 0) is (size == (80, 24))
        await more_text_while_more_below(pilot, body)


async def test_esc_at_a_studys_start_clears_the_code_and_never_closes_the_station(
    tmp_path: Path,
) -> None:
    """Esc on the study's first screen quit the app, so one participant could close the
    station for the next. It clears the code typed (offered while one is typed); the
    station is left on purpose with ctrl+q, as the footer says. Outside a study Esc quits
    as before."""
    study, _ = create_study(study_scenario(tmp_path), ["p01"], tmp_path / "study")
    app = make_app(study.scenario_path, study=study)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StudyStartScreen)
        field = pilot.app.screen.query_one("#code", Input)
        assert await footer_shows(pilot, "Quit", True)
        assert not await footer_shows(pilot, "Clear", False)
        await pilot.press("escape")  # nothing typed: nothing happens
        await pilot.pause()
        assert app.is_running and isinstance(pilot.app.screen, StudyStartScreen)
        await pilot.press(*"K7QM")
        assert await footer_shows(pilot, "Clear", True)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and isinstance(pilot.app.screen, StudyStartScreen)
        assert field.value == "" and pilot.app.focused is field
        assert not await footer_shows(pilot, "Clear", False)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running
    (tmp_path / "plain").mkdir()
    plain = pool_app(tmp_path / "plain", participant=None)
    async with plain.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StartScreen)
        assert await footer_shows(pilot, "Quit", True)
        await pilot.press("escape")
        await pilot.pause()
        assert not plain.is_running
