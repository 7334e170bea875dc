"""The app's review screen says "not asked" of a weight no answer informed (no bar, no
number) and puts the settled and the unsettled trade-offs under headings true of each."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.geometry import Region
from textual.widgets import Static

from tradeoff.record.recorder import Recorder
from tradeoff.tui.screens.review import ReviewScreen

from ..conftest import three_answers_one_unasked

pytestmark = pytest.mark.core


def drawn(widget: Static) -> str:
    """What ``widget`` draws, row by row, as a person reads it."""
    size = widget.outer_size
    rows = widget.render_lines(Region(0, 0, size.width, size.height))
    return "\n".join(row.text.rstrip() for row in rows)


async def _review_texts(
    rec: Recorder, size: tuple[int, int] = (120, 50)
) -> tuple[list[str], list[str]]:
    """The review screen of ``rec`` (at 120×50): its weight rows and all its texts as drawn."""

    class Review(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(rec))

    app = Review()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        rows = [str(w.render()) for w in app.screen.query(".weight-row").results(Static)]
        return rows, [drawn(w) for w in app.screen.query(Static)]


async def test_the_review_says_not_asked(tmp_path: Path) -> None:
    with three_answers_one_unasked(tmp_path, "dr-kim") as rec:
        asked = rec.engine.result().asked
        assert asked is not None
        rows, lines = await _review_texts(rec)
    assert len(rows) == len(asked)
    for row, informed in zip(rows, asked, strict=True):
        if informed:
            assert "%" in row
        else:
            assert row.rstrip().endswith("not asked: your questions never varied it")
            assert "%" not in row and "█" not in row and "░" not in row
    text = "\n".join(lines)
    assert "Not settled by your answers:" not in text  # the heading says it, once
    if any(line.startswith("• ") and "(90% range)" in line for line in lines):
        assert "Not settled by your answers yet:" in lines


async def test_a_wrapped_bullet_goes_on_under_its_text(tmp_path: Path) -> None:
    """At 80 columns a trade-off's bullet that wrapped went on at the screen's margin,
    under the "•"; its lines go on under its own text."""
    with three_answers_one_unasked(tmp_path, "dr-kim") as rec:
        _, texts = await _review_texts(rec, (80, 24))
    bullets = [text.splitlines() for text in texts if text.lstrip().startswith("•")]
    assert any(len(rows) > 1 for rows in bullets), texts  # some wrap at 80 columns
    for rows in bullets:
        assert rows[0].startswith("• "), rows
        assert all(row.startswith("  ") and row[2] != " " for row in rows[1:]), rows


async def test_a_share_under_one_percent_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A share of 0.6 % with a range of 0.1–0.4 % read "1% (0%–0%)", outside its own range:
    it reads "<1% (under 1%)"; a range reaching past 1 % keeps its numbers."""
    from tradeoff.learn.shares import Shares

    with three_answers_one_unasked(tmp_path, "dr-kim") as rec:
        n = len(rec.engine.scenario.weight_names)
        values = (0.006, 0.004, *[(1 - 0.01) / (n - 2)] * (n - 2))
        intervals = ((0.001, 0.004), (0.0, 0.03), *[(0.2, 0.6)] * (n - 2))
        monkeypatch.setattr(type(rec.engine), "shares", lambda self: Shares(values, intervals))
        rows, _ = await _review_texts(rec)
    assert rows[0].rstrip().endswith(" <1% (under 1%)"), rows[0]
    assert rows[1].rstrip().endswith(" <1% (0%–3%)"), rows[1]
    assert "<1%" not in rows[2]


async def test_the_shares_add_up_to_100(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shares of 60.86, 36.74, 1.58 and 0.82 % each rounded read 61 + 37 + 2 + 1 = 101 %
    beside "add up to 100% among them": they are said as parts of one whole."""
    from tradeoff.learn.shares import Shares

    with three_answers_one_unasked(tmp_path, "dr-kim") as rec:
        values = (0.6086, 0.3674, 0.0158, 0.0082)
        assert len(rec.engine.scenario.weight_names) == len(values)
        nothing = (None,) * len(values)
        monkeypatch.setattr(type(rec.engine), "shares", lambda self: Shares(values, nothing))
        rows, _ = await _review_texts(rec)
    ends = [row.rstrip().rsplit(" ", 1)[-1] for row in rows]
    assert ends == ["61%", "37%", "1%", "<1%"], rows
