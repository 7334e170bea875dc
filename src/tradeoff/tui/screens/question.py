"""The question screen: two options side by side, answered with keys or clicks."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, ProgressBar, Static

from tradeoff.ask.checks import Side
from tradeoff.ask.queries import Query
from tradeoff.ask.shown import Line, card_lines
from tradeoff.ask.words import QUESTION_PROMPT, option_title, question_prompt
from tradeoff.learn import Choice
from tradeoff.record.recorder import Recorder
from tradeoff.study.checks import due_check
from tradeoff.tui.common import UNDONE, PauseSession, QuestionsDone
from tradeoff.tui.dialogs import HelpScreen, save


class OptionCard(Static):
    """One option of a question; clicking it chooses it."""

    class Chosen(Message):
        def __init__(self, choice: Choice) -> None:
            self.choice = choice
            super().__init__()

    def __init__(self, side: Choice, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.side = side

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.side))


def render_card(title: str, lines: Sequence[Line]) -> Group:
    """A card's text: differing lines bold, each followed by whether it is better or worse
    than the other option's, in words (as the page says it) and in colour (green where
    better, red where worse); a line too long for the card goes on under its own start,
    not under the marker.

    >>> from rich.console import Console
    >>> from tradeoff.ask.shown import Line
    >>> lines = [Line("flags 832 of 1,000 malignant lumps", True, False, "136 fewer"),
    ...          Line("7.5 ms to score one case", False, False, "")]
    >>> console = Console(width=32)
    >>> with console.capture() as card:
    ...     console.print(render_card("Option A", lines))
    >>> print(card.get())  # doctest: +NORMALIZE_WHITESPACE
    Option A
    ▸ flags 832 of 1,000 malignant
      lumps
        worse: 136 fewer
      7.5 ms to score one case
    """
    grid = Table.grid()
    grid.add_column(width=2, no_wrap=True)  # the marker of a line that differs
    grid.add_column(ratio=1)  # the line, wrapped within its column
    for line in lines:
        if line.differs:
            style = "bold green" if line.better else "bold red"
            word = "better" if line.better else "worse"
            grid.add_row(Text("▸ ", style=style), Text(line.text, style="bold"))
            grid.add_row("", Text(f"  {word}: {line.delta}", style=style))
        else:
            grid.add_row("", Text(line.text))
    return Group(Text(title, style="bold"), grid)


class QuestionScreen(Screen[None]):
    """Two options side by side; answer with keys or clicks."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,left", "answer('left')", "Option A", id="answer-a"),
        Binding("b,right", "answer('right')", "Option B", id="answer-b"),
        Binding("equals_sign,space", "answer('indifferent')", "Can't tell", id="answer-same"),
        Binding("u", "undo", "Undo", id="undo"),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("q", "quit_session", "Save & quit", id="save-quit"),
    ]

    def __init__(self, recorder: Recorder, checks: Sequence[int] = ()) -> None:
        super().__init__()
        self.recorder = recorder
        self.shown_at = time.perf_counter()
        #: The questions a study's attention check comes before (:mod:`tradeoff.study.checks`).
        self.checks = tuple(checks)

    def _check(self) -> tuple[Query, Side] | None:
        """The attention check due now (shown as a question, recorded as a check)."""
        engine = self.recorder.engine
        if not self.checks or engine.next_query() is None:
            return None
        return due_check(
            self.checks,
            self.recorder.marks.checks,
            engine.answered,
            engine.scenario,
            engine.space.priors,
            engine.seed,
        )

    def compose(self) -> ComposeResult:
        s = self.recorder.engine.scenario
        yield Label(s.title, id="title")
        with Horizontal(id="progress-row"):
            yield ProgressBar(total=1, show_eta=False, show_percentage=False, id="progress")
            yield Label("", id="progress-label")
        yield Static("", id="question-note")  # what an undo says (say)
        yield Static(QUESTION_PROMPT, id="prompt")
        with Horizontal(id="cards"):
            yield OptionCard(Choice.LEFT, id="card-a")
            yield OptionCard(Choice.RIGHT, id="card-b")
        yield Static(
            "Press a / ← for Option A, b / → for Option B, = or space if you can't tell.",
            id="answer-hint",
        )
        yield Button("Can't tell", id="cant-tell")
        yield Footer()

    def on_mount(self) -> None:
        self.show_question()

    def say(self, note: str) -> None:
        """Say ``note`` above the question, in the screen (a toast covered the help), until
        the next answer; or nothing: the line goes."""
        line = self.query_one("#question-note", Static)
        line.update(note)
        line.display = bool(note)

    def show_question(self, note: str = "") -> None:
        """Show the engine's next question, ``note`` above it (what was said about the one
        before goes: an undo's "here is that question again" is not about the next one), or
        say that none is left."""
        self.say(note)
        engine = self.recorder.engine
        query = engine.next_query()
        if query is None:
            self.post_message(QuestionsDone(self.recorder))
            return
        due = self._check()
        self._show_query(query if due is None else due[0])
        self.shown_at = time.perf_counter()

    def _show_query(self, query: Query) -> None:
        engine = self.recorder.engine
        s = engine.scenario
        self.query_one("#prompt", Static).update(
            question_prompt(query, aspects_only=s.aspects_only)
        )
        self.query_one("#card-a", OptionCard).update(
            render_card(
                option_title(query, 0, aspects_only=s.aspects_only),
                card_lines(s, query.left, query.right),
            )
        )
        self.query_one("#card-b", OptionCard).update(
            render_card(
                option_title(query, 1, aspects_only=s.aspects_only),
                card_lines(s, query.right, query.left),
            )
        )
        before = len(self.recorder.marks.checks)  # checks are counted among the questions
        planned = max(sum(p <= engine.expected_total() + before for p in self.checks), before)
        number = engine.answered + 1 + before
        total = max(engine.expected_total() + planned, number)
        bar_ = self.query_one("#progress", ProgressBar)
        bar_.update(total=total, progress=number - 1)
        deciding = engine.candidates is not None and engine.spec.stop != "weights"
        # Of how many in all, this one counted as the page counts it: "at most 1 to go" on
        # the last question read as one more after it.
        self.query_one("#progress-label", Label).update(
            f"question {number} of {'at most' if deciding else 'about'} {total}"
        )

    def action_answer(self, choice: str) -> None:
        if self.recorder.engine.next_query() is None:
            return
        elapsed = (time.perf_counter() - self.shown_at) * 1000
        label = {"left": "Option A", "right": "Option B"}.get(choice, "can't tell")
        rec = self.recorder
        number = rec.engine.answered + 1 + len(rec.marks.checks)
        due = self._check()
        save(
            self,
            (lambda: rec.answer(Choice(choice), response_ms=elapsed))
            if due is None
            else (lambda: rec.check(due[0], due[1], Choice(choice), response_ms=elapsed)),
            f"Your answer to question {number} ({label})",
            lambda _: self.show_question(),
        )

    @on(OptionCard.Chosen)
    def _clicked(self, event: OptionCard.Chosen) -> None:
        self.action_answer(event.choice.value)

    @on(Button.Pressed, "#cant-tell")
    def _cant_tell(self) -> None:
        self.action_answer(Choice.INDIFFERENT.value)

    def action_undo(self) -> None:
        if self.recorder.engine.answered == 0:
            self.say("Nothing to undo yet.")
            return

        save(
            self,
            self.recorder.undo,
            "Taking back your last answer",
            lambda _: self.show_question(UNDONE),
        )

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.recorder.engine.scenario.aspects_only))

    def action_quit_session(self) -> None:
        self.post_message(PauseSession(self.recorder, "paused"))
