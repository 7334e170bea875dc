"""The coordinator's live view of a study (``tradeoff study status DIR --watch``).

Its summary is ``study status``'s totals line (:func:`tradeoff.study.status.totals_words`);
its table has ``study status``'s columns, the last activity and the time of a withdrawal
or an erasure to the minute (UTC), and the note column takes the width the others leave,
a long note wrapped onto more lines of its row rather than cut (laid out again when the
terminal is resized).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static

from tradeoff.errors import InputError
from tradeoff.study.folder import Study
from tradeoff.study.status import (
    StudyStatus,
    minute,
    study_status,
    table_note,
    totals_words,
)

COLUMNS = ("participant", "answers", "complete", "last activity", "note")
#: The note column is never narrower than this (a wider table scrolls sideways); a panel
#: study's participant ids (26 characters) leave it 11 at 80 columns.
NOTE_MIN = 10
#: Cells' padding, left and right, as the table draws them.
PADDING = 1
#: Room kept for the table's vertical scroll bar.
SCROLLBAR = 2


def status_rows(status: StudyStatus) -> list[tuple[str, str, str, str, str]]:
    """The table's rows: one per participant, in the study's order."""
    return [
        (
            r.participant,
            str(r.answers),
            "yes" if r.complete else "no",
            minute(r.last_activity),
            table_note(r.to_dict()),
        )
        for r in status.rows
    ]


def summary_line(status: StudyStatus) -> str:
    """``study status``'s totals, and how to read the view."""
    return f"{totals_words(status.to_dict())}. Times are UTC; refreshes as answers arrive."


def column_widths(rows: list[tuple[str, str, str, str, str]], width: int) -> list[int]:
    """Each column's width (without padding) in a table ``width`` cells wide: every column
    but the note as wide as its heading or widest cell, the note what is left (at least
    :data:`NOTE_MIN`).

    >>> column_widths([("p01", "6", "no", "2026-11-29 10:22", "unfinished after 6 answers")], 80)
    [11, 7, 8, 16, 26]
    """
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(COLUMNS[:-1])]
    used = sum(w + 2 * PADDING for w in widths) + SCROLLBAR + 2 * PADDING
    return [*widths, max(NOTE_MIN, width - used)]


class StudyWatchApp(App[None]):
    """A table of every participant's progress, refreshed every ``interval`` seconds."""

    TITLE = "tradeoff study"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("r", "refresh_now", "Refresh"),
    ]

    def __init__(self, study: Study, interval: float = 2.0) -> None:
        super().__init__()
        self.study = study
        self.interval = max(0.2, interval)
        self.rows: list[tuple[str, str, str, str, str]] = []

    def compose(self) -> ComposeResult:
        yield Static(str(self.study.path), id="study-title")
        yield Static("", id="study-summary")
        yield DataTable(id="study-table", zebra_stripes=True, cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_now()
        self.set_interval(self.interval, self.action_refresh_now)

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out()

    def action_refresh_now(self) -> None:
        try:
            status = study_status(self.study)
        except InputError as exc:
            self.query_one("#study-summary", Static).update(exc.message())
            return
        self.rows = status_rows(status)
        self.lay_out()
        self.query_one("#study-summary", Static).update(summary_line(status))

    def lay_out(self) -> None:
        """The table anew for the rows and the screen's width: each note whole, wrapped
        in its column when it is longer."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        for label, width in zip(COLUMNS, column_widths(self.rows, self.size.width), strict=True):
            table.add_column(label, width=width)
        for cells in self.rows:  # Text: a note's brackets are not markup
            texts = [Text(c) for c in cells]
            texts[1].justify = "right"  # the number of answers, as study status has it
            table.add_row(*texts, height=None)
        if self.rows:
            table.move_cursor(row=min(row, len(self.rows) - 1))


def watch(study: Study, interval: float = 2.0) -> None:
    """Run the live view until the coordinator quits."""
    StudyWatchApp(study, interval).run()
