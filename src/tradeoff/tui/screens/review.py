"""The review screen: what was learned, with its uncertainty; answer more or confirm."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, Static

from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.words import candidates_noun, not_asked_words, tradeoff_headings
from tradeoff.learn import Engine, consistency_of
from tradeoff.learn.shares import left_out_words
from tradeoff.record.recorder import Recorder
from tradeoff.stable import whole_percents
from tradeoff.text import probability_words
from tradeoff.tui.common import UNDONE, BackToQuestions, Confirmed, PauseSession
from tradeoff.tui.dialogs import ReviewHelpScreen, save
from tradeoff.tui.scrolling import TextScroll


def bar(value: float, low: float | None, high: float | None, width: int = 24) -> Text:
    """A weight as a bar, its 90% interval drawn around it.

    >>> bar(0.5, 0.25, 0.75, width=8).plain
    '████░░░ '
    """
    text = Text()
    cells = [" "] * width
    lo = 0 if low is None else max(0, min(width - 1, int(low * width)))
    hi = -1 if high is None else max(0, min(width - 1, int(high * width)))
    for i in range(width):
        if i < round(value * width):
            cells[i] = "█"
        elif lo <= i <= hi:
            cells[i] = "░"
    text.append("".join(cells), style="bold")
    return text


def bullet(text: str) -> Table:
    """A bullet's line: where it wraps, it goes on under its own text, not under the "•".

    >>> from rich.console import Console
    >>> console = Console(width=24)
    >>> with console.capture() as said:
    ...     console.print(bullet("a trade-off said in more words than fit"))
    >>> print(said.get())  # doctest: +NORMALIZE_WHITESPACE
    • a trade-off said in
      more words than fit
    """
    grid = Table.grid()
    grid.add_column(width=2, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row("• ", Text(text))
    return grid


class ReviewScreen(Screen[None]):
    """What was learned, with uncertainty; answer more or confirm."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "confirm", "Confirm", id="confirm"),
        Binding("m", "more", "10 more", id="more"),
        Binding("u", "undo", "Undo", id="review-undo"),
        Binding("question_mark", "help", "Help", id="review-help"),
        Binding("q", "quit_session", "Save & quit", id="review-quit"),
        # The words scroll above the buttons, from anywhere on the screen.
        Binding("pagedown", "scroll_words('page_down')", "More text", id="review-more-text"),
        Binding("pageup", "scroll_words('page_up')", "Back", id="review-back", show=False),
        Binding("down", "scroll_words('down')", "", show=False),
        Binding("up", "scroll_words('up')", "", show=False),
    ]

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        #: Whether more questions would bring any: not when none is left that the screen
        #: could show ("exhausted") or the weights are as precise as planned. The screen is
        #: left (popped) on undo or "10 more", so this holds while it is shown.
        self.can_ask_more = recorder.engine.stop_reason() not in ("exhausted", "precise")

    def compose(self) -> ComposeResult:
        engine = self.recorder.engine
        s = engine.scenario
        result = engine.result()
        yield Label("What we learned", id="title")
        with TextScroll(id="review-body"):
            yield Static(self._why_stopped(), id="why-stopped")
            ranges = (
                "each cost or reward from one end of its range to the other"
                if s.aspects_only
                else "finding none to all of a class's cases; each cost or reward from one end "
                "of its range to the other"
            )
            yield Static(
                f"From your {result.answers} answers, this is how much each aspect weighs for "
                f"you over its whole range ({ranges}). Bar: best estimate; "
                "shaded and in brackets: the range it lies in with 90% probability.",
                classes="muted",
            )
            names = [f"{c.outcome} {c.label}" for c in s.classes] + [a.name for a in s.attributes]
            # Shares of the asked aspects only: a guess for an unasked one is not counted.
            shares = engine.shares()
            parts = whole_percents(shares.values)  # said so that they add up to 100 %
            for name, w, interval, part in zip(
                names, shares.values, shares.intervals, parts, strict=True
            ):
                line = Text(f"{name[:28]:<28} ")
                if w is None or part is None:  # the starting guess: no bar, no number
                    line.append(not_asked_words(), style="italic")
                    yield Static(line, classes="weight-row")
                    continue
                lo, hi = (None, None) if interval is None else interval
                line.append_text(bar(w, lo, hi))
                # Whole percentages: the intervals do not know more than that; under 1 %
                # said so (a share of 0.6 % read "1% (0%–0%)", outside its own range).
                rng = f"  {'<1%' if w < 0.01 else part:>4}"
                if lo is not None and hi is not None:
                    rng += " (under 1%)" if hi < 0.01 else f" ({lo:.0%}–{hi:.0%})"
                line.append(rng)
                yield Static(line, classes="weight-row")
            if left_out := left_out_words(shares, names):
                yield Static(left_out, id="left-out", classes="muted")
            priors, draws = engine.space.priors, engine.weight_draws()
            said = tradeoffs(s, result.weights, priors, draws, asked=result.asked)
            for heading, settled in zip(tradeoff_headings(), (True, False), strict=True):
                group = [t.text for t in said if t.settled is settled]
                if group:
                    yield Static("")
                    yield Static(Text(f"{heading}:", style="bold"))
                    yield from (Static(bullet(text)) for text in group)
            yield Static("")
            yield Static(self._consistency(), id="consistency")
            yield Static("")  # a line between the words and the buttons
        # Under the words, always in view: at 80×24 the words run past the screen's foot.
        with Horizontal(id="review-buttons"):
            yield Button("Confirm", id="confirm-button", variant="primary")
            if self.can_ask_more:
                yield Button("Answer 10 more questions", id="more-button")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide "10 more" from the footer (and ignore its key) when no question is left,
        "More text" once the words are read to their end (or all fit)."""
        if action == "scroll_words":
            down = parameters in (("page_down",), ("down",))
            return self.query_one("#review-body", TextScroll).offers(down)
        return self.can_ask_more if action == "more" else True

    def on_resize(self) -> None:
        """The words take the rows the title, the buttons and the footer leave them (the
        buttons follow right under them), and scroll when they need more."""
        others = (self.query_one("#title"), self.query_one("#review-buttons"), *self.query(Footer))
        used = sum(w.outer_size.height for w in others)
        self.query_one("#review-body").styles.max_height = max(3, self.size.height - used)

    def action_scroll_words(self, how: str) -> None:
        body = self.query_one("#review-body", TextScroll)
        getattr(body, f"action_scroll_{how}" if how in ("up", "down") else f"action_{how}")()

    def _why_stopped(self) -> str:
        """Why the questions stopped, and, when the pick rests on one answer about some
        aspects (:attr:`~tradeoff.learn.verdict.Verdict.one_answer`), that it does."""
        engine = self.recorder.engine
        said = _stop_words(engine)
        verdict = engine.verdict()
        if verdict is None or not verdict.one_answer:
            return said
        return f"{said} {verdict.rests_words(engine.result().names)}"

    def _consistency(self) -> Text:
        check = consistency_of(self.recorder.engine)
        return Text(check.sentence(), style="bold red" if check.flagged else "")

    def on_mount(self) -> None:
        # Focused without scrolling to it: the screen opens at its top (the title and why
        # the questions stopped), the keys work from anywhere.
        self.query_one("#confirm-button", Button).focus(scroll_visible=False)

    def action_help(self) -> None:
        self.app.push_screen(ReviewHelpScreen())

    def action_quit_session(self) -> None:
        self.post_message(PauseSession(self.recorder, "paused at the review"))

    @on(Button.Pressed, "#more-button")
    def action_more(self) -> None:
        save(self, lambda: self.recorder.extend(10), "Asking for 10 more questions", self._back)

    def action_undo(self) -> None:
        if self.recorder.engine.answered == 0:
            return
        save(self, self.recorder.undo, "Taking back your last answer", self._undone)

    def _undone(self, _: object) -> None:
        self.post_message(BackToQuestions(UNDONE))  # said above that question, as there

    def _back(self, _: object) -> None:
        self.post_message(BackToQuestions())

    @on(Button.Pressed, "#confirm-button")
    def action_confirm(self) -> None:
        save(self, self.recorder.finish, "Your confirmation", self._finished)

    def _finished(self, _: object) -> None:
        self.post_message(Confirmed(self.recorder))


def _stop_words(engine: Engine) -> str:
    """Why the questions stopped (the reason the engine gives, in words)."""
    reason = engine.stop_reason()
    if reason == "decided":
        from tradeoff.choose.measurement_words import noise_stop_sentence  # pandas, later

        settled = engine.decision()
        verdict = engine.verdict()
        if verdict is not None and verdict.practically_tied:
            per_class = " (for a class, one case per 1,000)" if engine.scenario.classes else ""
            return (
                "The questions stopped early: your answers settle that the pick is the "
                f"best {candidates_noun(engine.scenario, plural=False)} for you or "
                "practically tied with it: closer than a "
                f"thousandth of the range of what you weigh most{per_class} "
                f"({probability_words(verdict.stated)} sure)."
            )
        if verdict is not None and (
            said := noise_stop_sentence(verdict, engine.measured is not None)
        ):  # the measurement noise, not the answers, holds the pick down: as the page says
            return said
        sure = "" if settled is None else f" (the pick is {probability_words(settled[0])} sure)"
        return (
            "The questions stopped early: your answers already settle which of the "
            f"{candidates_noun(engine.scenario)} is best for you{sure}. More questions "
            "would sharpen the "
            "weights below without changing that."
        )
    if reason == "exhausted":
        return (
            "The questions stopped early: each one left would show options that read "
            "the same on this screen, or ask again about a trade you could not tell "
            "apart."
        )
    if reason == "precise":
        return "The questions stopped: your weights are known as precisely as planned."
    return f"You answered all {engine.answered} planned questions."
