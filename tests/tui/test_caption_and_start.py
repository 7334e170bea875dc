"""Two things a new user met (Pilot). The ranking details at 80×24: the table beside the plot
has room for the counts only; the caption names those alone and says which columns lie
further right and how to see them (Tab, then →). Scrolled sideways, the model's number
and name stay in view and the caption follows: what is in view, what lies further left
or right. At 140×45 every column is in view and every unit named. The start screen: the
focused Start is plainly marked, and while the first question is prepared (in a worker)
a screen says so.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.color import Color
from textual.pilot import Pilot
from textual.widgets import Button, DataTable, Label, Static

from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import LoadingScreen, StartScreen
from tradeoff.tui.select import SelectionScreen

from .test_tui import click_start, pool_app, to_result, wait_for

pytestmark = pytest.mark.e2e


def plain(text: str) -> str:
    return " ".join(text.split())


def caption(pilot: Pilot[Any]) -> str:
    return plain(str(pilot.app.screen.query_one("#select-legend", Static).render()))


async def test_the_caption_at_80x24_names_the_columns_in_view_only(tmp_path: Path) -> None:
    app = pool_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_result(pilot)
        await pilot.press("e")
        await wait_for(pilot, SelectionScreen)
        await pilot.pause(0.3)
        table = app.screen.query_one("#select-table", DataTable)
        narrow = caption(pilot)
        shown, _, further = narrow.partition("Further right ")
        assert "Counts are per 1,000 lumps" in shown, narrow
        assert "latency in ms" not in shown and "memory in KB" not in shown, narrow
        assert further.endswith(
            ": latency, memory and chance best. d: COPA's ranking for the practitioner."
        ), narrow
        assert further.startswith("(Tab, then →): "), narrow
        assert "Further left" not in narrow, narrow

        table.focus()  # Tab, then →: the hidden columns come into view, the names stay
        for _ in range(60):
            await pilot.press("right")
        await pilot.pause(0.3)
        assert table.scroll_x > 0
        scrolled = caption(pilot)
        assert "Memory in KB." in scrolled and "Further left (←): malignant flagged" in scrolled
        assert "Counts are per 1,000" not in scrolled, scrolled
        row = "".join(s.text for s in table.render_line(2))
        assert " 1 " in row and app.screen.query_one("#select-table").fixed_columns == 2, row

        await pilot.resize_terminal(140, 45)
        await pilot.pause(0.5)
        wide = caption(pilot)
        assert "Further" not in wide, wide
        assert "Counts are per 1,000 lumps" in wide and "latency in ms, memory in KB" in wide
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.5)
        assert caption(pilot) == narrow


async def test_the_focused_start_button_is_marked(tmp_path: Path) -> None:
    app = pool_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StartScreen)
        button = app.screen.query_one("#start", Button)
        assert not button.has_focus
        blurred = (button.styles.border_top, button.styles.border_bottom)
        button.focus()
        await pilot.pause(0.2)
        assert button.has_focus
        focused = (button.styles.border_top, button.styles.border_bottom)
        accent = Color.parse(app.get_css_variables()["accent"])
        assert focused != blurred, (blurred, focused)
        assert focused[0][1] == focused[1][1] == accent, (focused, accent)
        assert "underline" in str(button.styles.text_style)


async def test_a_screen_says_the_first_question_is_being_prepared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the session opens (held here until the screen has been read) the app says
    what it is doing, and its UI thread is free: the screen answers a resize."""
    from tradeoff.study.opening import start_session

    opened = threading.Event()

    def slow(*args: Any, **kwargs: Any) -> Any:
        opened.wait(20)
        return start_session(*args, **kwargs)

    monkeypatch.setattr("tradeoff.tui.sessions.start_session", slow)
    app = pool_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StartScreen)
        await click_start(pilot)
        await wait_for(pilot, LoadingScreen)
        title = str(app.screen.query_one("#title", Label).render())
        assert title == "Preparing the first question…"
        assert "a few seconds" in str(app.screen.query_one("#loading-note", Static).render())
        await pilot.resize_terminal(100, 30)  # the UI thread answers while the worker waits
        await pilot.pause(0.2)
        assert app.screen.size.width == 100 and isinstance(app.screen, LoadingScreen)
        opened.set()
        await wait_for(pilot, QuestionScreen)
