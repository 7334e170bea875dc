"""The coordinator's live view of a study (``tradeoff study status DIR --watch``)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static

from tradeoff.errors import InputError
from tradeoff.study.folder import Study
from tradeoff.study.status import StudyStatus, row_note, study_status

COLUMNS = ("participant", "answers", "complete", "last activity", "note")


def status_rows(status: StudyStatus) -> list[tuple[str, str, str, str, str]]:
    """The table's rows: one per participant, in the study's order."""
    return [
        (
            r.participant,
            str(r.answers),
            "yes" if r.complete else "no",
            r.last_activity or "—",
            row_note(r.to_dict()),
        )
        for r in status.rows
    ]


def summary_line(status: StudyStatus) -> str:
    return (
        f"{len(status.rows)} participants: {status.started} started, {status.complete} "
        f"complete, {sum(r.flagged for r in status.rows)} flagged as inconsistent. "
        "Refreshes as answers arrive."
    )


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

    def compose(self) -> ComposeResult:
        yield Static(str(self.study.path), id="study-title")
        yield Static("", id="study-summary")
        yield DataTable(id="study-table", zebra_stripes=True, cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.action_refresh_now()
        self.set_interval(self.interval, self.action_refresh_now)

    def action_refresh_now(self) -> None:
        try:
            status = study_status(self.study)
        except InputError as exc:
            self.query_one("#study-summary", Static).update(exc.message())
            return
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows(status_rows(status))
        self.query_one("#study-summary", Static).update(summary_line(status))


def watch(study: Study, interval: float = 2.0) -> None:
    """Run the live view until the coordinator quits."""
    StudyWatchApp(study, interval).run()
