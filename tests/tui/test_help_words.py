"""The result screen's help, for options described by their aspects alone, speaks of
options and their own units: no candidate model, no counts per 1,000 cases (read off the
screen as Textual shows it)."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Static

from tradeoff.tui.dialogs import ResultHelpScreen

pytestmark = pytest.mark.core


async def _shown(aspects_only: bool) -> str:
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ResultHelpScreen(aspects_only))
        await pilot.pause()
        return " ".join(str(s.render()) for s in app.screen.query(Static))


async def test_the_result_help_speaks_of_options() -> None:
    aspects = await _shown(True)
    assert "model" not in aspects and "1,000 cases" not in aspects, aspects
    assert "Every option, the one your answers make best first." in aspects
    assert "Every candidate model," in await _shown(False)
