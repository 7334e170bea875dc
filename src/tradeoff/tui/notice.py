"""What a served visitor sees when their app cannot start or their session cannot open: the
reason in words and what to do, instead of a blank page (the details go to the server's
log). See docs/architecture.md, "Serving"."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Label, Static

from tradeoff.text import clean_text

#: A study whose files changed after it was made (``load_study`` refuses it).
STUDY_CHANGED = (
    "This study cannot start: its files have changed since the study was made, so the "
    "questions would not be the ones planned. Nothing you answered before is lost. Please "
    "tell the study's coordinator; you can close this page."
)

#: The participant's session is open in another window or tab (its file is locked).
OPEN_ELSEWHERE = (
    "Your session is open in another window or tab. Your answers there are saved as you "
    "give them. Close that window (or press q there), then enter your code here again."
)

#: Every other reason a session did not open.
NOT_OPENED = (
    "Your session could not be opened. Nothing you answered before is lost. Please try "
    "again in a minute, or tell the study's coordinator."
)


class NoticeApp(App[None]):
    """A one-screen app that says why nothing more can happen here."""

    TITLE = "tradeoff"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Close")]
    CSS = "#notice-title { text-style: bold; margin: 1 2 0 2; } #notice { margin: 1 2; }"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = clean_text(text)

    def compose(self) -> ComposeResult:
        yield Label("tradeoff: this page cannot go on", id="notice-title")
        yield Static(self.text, id="notice")
        yield Footer()
