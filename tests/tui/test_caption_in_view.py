"""The ranking details' caption names what the numbers of the columns in view mean, and
only those: at 80 columns the table beside the plot shows the leaderboard's first aspects
and the caption said "BBH in points, MATH in points, MMLU-PRO in points" of columns a
person could not see; it now says which lie further right and how to see them. Widened
to 140 every column is in view and the caption names every unit."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from tradeoff.tui.select import SelectionScreen

from .test_tui import wait_for
from .test_tui_leaderboard import in_view, plain, three_questions, to_the_result

pytestmark = pytest.mark.e2e


async def test_the_caption_names_only_the_columns_in_view(tmp_path: Path) -> None:
    app = three_questions(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_the_result(pilot)
        await pilot.press("e")
        await wait_for(pilot, SelectionScreen)
        await pilot.pause(0.3)
        screen = app.screen
        table = screen.query_one("#select-table", DataTable)

        def caption() -> str:
            return plain(str(screen.query_one("#select-legend", Static).render()))

        narrow = caption()
        assert table.virtual_size.width > table.scrollable_content_region.width  # some hidden
        assert "CO2 in kg" in narrow and "MMLU-PRO in points" not in narrow, narrow
        shown, _, further = narrow.partition("Further right ")
        assert "MMLU-PRO" in further and "chance best" in further, narrow
        assert "CO2" not in further and "MMLU-PRO" not in shown, narrow
        assert further.startswith("(Tab, then →): ")
        await pilot.press("d")  # COPA's ranking: its own columns, the same rule
        await pilot.pause(0.3)
        assert "Further right " in caption() and "Pareto" in caption()
        await pilot.press("d")
        await pilot.resize_terminal(140, 45)
        await pilot.pause(0.5)
        wide = caption()
        in_view(table)
        assert "Further right" not in wide, wide
        for unit in ("CO2 in kg", "IFEval in points", "MMLU-PRO in points"):
            assert unit in wide, wide
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.5)
        assert caption() == narrow
