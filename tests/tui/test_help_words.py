"""The result screen's and ranking details' help, for options described by their aspects
alone, speak of options and their own units: no candidate model, no counts per 1,000 cases
(read off the screen as Textual shows it)."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Static

from tradeoff.tui.dialogs import HelpScreen, ResultHelpScreen, SelectionHelpScreen

pytestmark = pytest.mark.core


async def _shown(aspects_only: bool, screen: HelpScreen | None = None) -> str:
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(screen or ResultHelpScreen(aspects_only))
        await pilot.pause()
        return " ".join(str(s.render()) for s in app.screen.query(Static))


async def test_the_result_help_speaks_of_options() -> None:
    aspects = await _shown(True)
    assert "model" not in aspects and "1,000 cases" not in aspects, aspects
    assert "Every option, the one your answers make best first." in aspects
    assert "Every candidate model," in await _shown(False)


async def test_ranking_details_help_speaks_of_options() -> None:
    """Ranking details' help, as the screen opens it for train trips (no decision curves:
    no classes), says "option" wherever it would say "model"."""
    aspects = await _shown(True, SelectionHelpScreen(False, "option"))
    assert "model" not in aspects, aspects
    assert "the option their answers make best" in aspects
    assert "decision curves" not in aspects
    assert "the model whose largest regret" in await _shown(False, SelectionHelpScreen())
