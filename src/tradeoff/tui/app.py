"""The Textual app a stakeholder answers in (also served to browsers by ``tradeoff serve``).

The app only shows the engine's questions and passes the answers on: every answer goes
through :class:`~tradeoff.session.Recorder`, which writes it to disk before the next
question appears. Slow work (building the population, replaying a session, ranking a pool)
runs in thread workers; widgets are only touched on the UI thread.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    DataTable,
    Footer,
    Input,
    Label,
    LoadingIndicator,
    ProgressBar,
    Select,
    Static,
)

from tradeoff.elicitation import Choice, consistency_of, expected_questions
from tradeoff.errors import InputError
from tradeoff.opening import resume_session, start_session
from tradeoff.presentation import (
    aspect_cell,
    aspect_header,
    card_lines,
    table_legend,
    tradeoff_sentences,
)
from tradeoff.queries import Query
from tradeoff.scenario import LoadedScenario, SpecOverrides, load_scenario
from tradeoff.session import (
    Recorder,
    SessionLog,
    SessionWriteError,
    check_participant,
    ignore_file_size_signal,
    read_session,
    unfinished_sessions,
)
from tradeoff.study import Study, failure_delay, recent_failures, record_failure

T = TypeVar("T")

NO_WRONG_ANSWERS = "There are no wrong answers: we want to learn what matters to you."


@dataclass(frozen=True)
class Settings:
    """How the app was started (from the command line or tests)."""

    scenario: Path
    scenarios_dir: Path
    sessions_dir: Path
    participant: str | None = None
    resume: Path | None = None
    overrides: SpecOverrides = field(default_factory=SpecOverrides)
    resume_log: SessionLog | None = None
    seed: int = 0
    #: A study: the start screen asks for an access code, which opens that participant's
    #: own session and nothing else (:mod:`tradeoff.study`).
    study: Study | None = None
    #: Where populations and pool tables are memory-mapped from (:mod:`tradeoff.cache`).
    cache_dir: Path | None = None


# --------------------------------------------------------------------------------------
# Widgets
# --------------------------------------------------------------------------------------


class OptionCard(Static):
    """One option of a question; clicking it chooses it."""

    class Chosen(Message):
        def __init__(self, choice: Choice) -> None:
            self.choice = choice
            super().__init__()

    def __init__(self, side: Choice, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.side = side

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.side))


def render_card(title: str, lines: list[Any]) -> Text:
    """A card's text: differing lines bold, green where better, red where worse."""
    text = Text()
    text.append(f"{title}\n", style="bold")
    for line in lines:
        if line.differs:
            style = "bold green" if line.better else "bold red"
            text.append("▸ ", style=style)
            text.append(f"{line.text}\n", style="bold")
            text.append(f"    {line.delta}\n", style=style)
        else:
            text.append(f"  {line.text}\n")
    return text


def bar(value: float, low: float | None, high: float | None, width: int = 24) -> Text:
    """A weight as a bar, its 90% interval drawn around it."""
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


# --------------------------------------------------------------------------------------
# Screens
# --------------------------------------------------------------------------------------


class HelpScreen(ModalScreen[None]):
    """The keys, and what the questions mean."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="close-help")
    ]

    HEADING = "How to answer"
    BODY = (
        "Each question shows two classifiers, Option A and Option B. Lines in "
        "bold differ between them (green: better than the other option, red: worse). "
        "Pick the one you would rather have.\n\n"
        "  a or ←      choose Option A\n"
        "  b or →      choose Option B\n"
        "  = or space  can't tell, they seem equally good\n"
        "  u           undo the last answer\n"
        "  q           save and quit (answers are already saved)\n"
        "  ?           this help\n\n"
        "You can also click an option. " + NO_WRONG_ANSWERS
    )

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label(self.HEADING, id="title")
            yield Static(self.BODY)
            yield Button("Close", id="close", variant="primary")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss()


class ReviewHelpScreen(HelpScreen):
    """What the review screen shows and what each choice does."""

    HEADING = "What this screen shows"
    BODY = (
        "Each bar is how much one aspect matters to you over its whole range, from "
        "your answers: the solid part is the best estimate, the shaded part the range "
        "it lies in with 90% probability. The sentences say the same as trades.\n\n"
        "  c or Enter  confirm: your answers are final\n"
        "  m           answer 10 more questions (narrower ranges)\n"
        "  u           take back your last answer\n"
        "  q           save and quit; you can resume later\n"
        "  ?           this help"
    )


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question."""

    def __init__(self, message: str, yes: str, no: str) -> None:
        super().__init__()
        self.message, self.yes, self.no = message, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.message)
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes, id="yes", variant="primary")
                yield Button(self.no, id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed)
    def _answer(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class SaveFailedScreen(ModalScreen[bool]):
    """A line could not be saved: what, why, and that the answer is kept; retry or quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,enter", "retry", "Try again", id="retry-save"),
        Binding("q,escape", "give_up", "Quit", id="quit-unsaved"),
    ]

    def __init__(self, what: str, error: SessionWriteError) -> None:
        super().__init__()
        self.what, self.error = what, error

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label("Not saved", id="title")
            yield Static(
                f"{self.what} could not be saved: {self.error.reason}.\n\n"
                "It is kept here, and every earlier answer is safe in "
                f"{self.error.path}. Free some disk space (or ask whoever runs this "
                "computer), then press Try again (r). Quit (q) leaves without it."
            )
            with Horizontal(id="confirm-buttons"):
                yield Button("Try again", id="retry", variant="primary")
                yield Button("Quit", id="give-up")

    def on_mount(self) -> None:
        self.query_one("#retry", Button).focus()

    @on(Button.Pressed, "#retry")
    def action_retry(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#give-up")
    def action_give_up(self) -> None:
        self.dismiss(False)


def reflow(text: str) -> str:
    """Paragraphs of a scenario's description as flowing text: single line breaks (the
    file's own wrapping) become spaces, blank lines stay paragraph breaks."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def leave(app: App[Any], text: str, line: str, *, return_code: int = 0) -> None:
    """Quit with a farewell: ``text``, then ``line`` (a file or a command) printed whole on a
    line of its own by the command line, so it can be copied at any terminal width."""
    app.farewell = (text, line)  # type: ignore[attr-defined]
    app.exit(return_code=return_code)


def pause(app: App[Any], recorder: Recorder, note: str) -> None:
    """Save and quit: note the pause (the answers are already on disk) and print the
    command that resumes (in a study: how to come back with the access code)."""
    with contextlib.suppress(SessionWriteError):  # a note only: the answers are on disk
        recorder.note(note)
    if isinstance(app, TradeoffApp) and app.settings.study is not None:
        leave(app, "Saved. To go on later, open this page again and enter your access code.", "")
        return
    leave(app, "Saved. Resume with:", f"tradeoff elicit --resume {recorder.path}")


def open_for(app: TradeoffApp, loaded: LoadedScenario, participant: str) -> None:
    """Start ``participant``'s session on ``loaded``, offering to continue an unfinished one
    (the default) or to start again."""
    found = unfinished_sessions(app.settings.sessions_dir, participant, loaded.scenario.id)
    if not found:
        app.begin(loaded, participant)
        return

    def decided(resume: bool | None) -> None:
        if resume:
            app.resume(found[-1], loaded)
        elif resume is False:
            app.begin(loaded, participant)

    who = "You have" if app.settings.study is not None else f"{participant} has"
    app.push_screen(
        ConfirmScreen(
            f"{who} an unfinished session on this scenario. Continue it where you left "
            "off, or start again from the first question? (The unfinished session stays "
            "on disk either way.)",
            "Continue where I left off",
            "Start a new session",
        ),
        decided,
    )


def describe(screen: Screen[Any], loaded: LoadedScenario, overrides: SpecOverrides) -> None:
    """Fill a start screen's ``#description`` and ``#expect`` for a scenario."""
    s = loaded.scenario
    screen.query_one("#description", Static).update(
        Text.assemble((s.title + "\n", "bold"), reflow(s.description))
    )
    spec = overrides.apply(s.elicitation)
    expected = expected_questions(s, spec)
    decides = s.pool is not None and spec.strategy == "probabilistic" and spec.stop != "weights"
    count = (
        f"At most {expected} questions (fewer once your answers settle which candidate "
        "model suits you)"
        if decides
        else f"About {expected} questions"
    )
    screen.query_one("#expect", Static).update(
        f"{count}, a few minutes. Every answer is saved at once; you can stop and come back."
    )


def save(
    screen: Screen[Any], action: Callable[[], T], what: str, then: Callable[[T], None]
) -> None:
    """Run a recorder call that writes to disk; if the write fails, keep what was being
    saved, say why, and let the person try again or quit (nothing on disk is lost)."""
    try:
        value = action()
    except SessionWriteError as exc:
        error = exc

        def decided(retry: bool | None) -> None:
            if retry:
                save(screen, action, what, then)
            else:
                leave(
                    screen.app,
                    f"{what} was not saved ({error.reason}); every earlier answer is saved. "
                    "Free some space, then resume with:",
                    f"tradeoff elicit --resume {error.path}",
                    return_code=1,
                )

        screen.app.push_screen(SaveFailedScreen(what, error), decided)
        return
    then(value)


class StartScreen(Screen[None]):
    """Pick a scenario, say who you are, start or resume."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", "Quit", id="quit-start")]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.loaded: LoadedScenario | None = None

    def scenario_files(self) -> list[Path]:
        files = sorted(self.settings.scenarios_dir.glob("*.toml"))
        if self.settings.scenario not in files:
            files.insert(0, self.settings.scenario)
        return files

    def compose(self) -> ComposeResult:
        yield Label("tradeoff: what matters to you in a classifier", id="title")
        with VerticalScroll(id="start-body"):
            options = [(p.stem, str(p)) for p in self.scenario_files()]
            yield Label("Scenario")
            yield Select(
                options, value=str(self.settings.scenario), allow_blank=False, id="scenario"
            )
            yield Static("", id="description")
            yield Static("", id="expect", classes="muted")
            yield Static(NO_WRONG_ANSWERS)
            yield Label("Your participant id (letters, digits, '-', '_')")
            yield Input(
                value=self.settings.participant or "", placeholder="e.g. dr-lee", id="participant"
            )
            yield Static("", id="start-error", classes="error")
            with Horizontal(id="start-buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Resume unfinished session", id="resume", disabled=True)
        yield Footer()

    def on_mount(self) -> None:
        self._load(self.settings.scenario)
        self.query_one("#participant", Input).focus()

    def _load(self, path: Path) -> None:
        error = self.query_one("#start-error", Static)
        try:
            self.loaded = load_scenario(path)
        except InputError as exc:
            self.loaded = None
            error.update(exc.message())
            return
        error.update("")
        describe(self, self.loaded, self.settings.overrides)
        self._check_resume()

    def _check_resume(self) -> None:
        button = self.query_one("#resume", Button)
        participant = self.query_one("#participant", Input).value.strip()
        button.disabled = True
        if not participant or self.loaded is None:
            return
        try:
            check_participant(participant)
        except InputError:
            return
        found = unfinished_sessions(
            self.settings.sessions_dir, participant, self.loaded.scenario.id
        )
        button.disabled = not found

    @on(Select.Changed, "#scenario")
    def _scenario_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._load(Path(event.value))

    @on(Input.Changed, "#participant")
    def _participant_changed(self) -> None:
        self._check_resume()

    def _participant(self) -> str | None:
        value = self.query_one("#participant", Input).value.strip()
        try:
            return check_participant(value)
        except InputError as exc:
            self.query_one("#start-error", Static).update(exc.message())
            return None

    @on(Input.Submitted, "#participant")
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        participant = self._participant()
        loaded = self.loaded
        if participant is None or loaded is None:
            return
        app = self.app
        assert isinstance(app, TradeoffApp)
        open_for(app, loaded, participant)

    @on(Button.Pressed, "#resume")
    def _resume(self) -> None:
        participant = self._participant()
        if participant is None or self.loaded is None:
            return
        found = unfinished_sessions(
            self.settings.sessions_dir, participant, self.loaded.scenario.id
        )
        if found:
            app = self.app
            assert isinstance(app, TradeoffApp)
            app.resume(found[-1], self.loaded)


class StudyStartScreen(Screen[None]):
    """A study's start: the scenario, and the access code that opens the participant's own
    session (new or resumed) and nothing else. Wrong codes get a plain message and a
    growing delay, counted across every connection (:func:`tradeoff.study.failure_delay`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", "Quit", id="quit-start")]

    def __init__(self, settings: Settings, study: Study) -> None:
        super().__init__()
        self.settings = settings
        self.study = study
        self.loaded: LoadedScenario | None = None

    def compose(self) -> ComposeResult:
        yield Label("tradeoff: what matters to you in a classifier", id="title")
        with VerticalScroll(id="start-body"):
            yield Static("", id="description")
            yield Static("", id="expect", classes="muted")
            yield Static(NO_WRONG_ANSWERS)
            yield Label("Your access code (from the study's coordinator)")
            yield Input(placeholder="e.g. K7QM-2XVD-9HJK-AB01", password=True, id="code")
            yield Static("", id="start-error", classes="error")
            with Horizontal(id="start-buttons"):
                yield Button("Start", id="start", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.loaded = load_scenario(self.study.scenario_path)
        except InputError as exc:
            self.query_one("#start-error", Static).update(exc.message())
            return
        describe(self, self.loaded, self.settings.overrides)
        self.query_one("#code", Input).focus()

    @on(Input.Submitted, "#code")
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        button = self.query_one("#start", Button)
        code = self.query_one("#code", Input).value
        if button.disabled or self.loaded is None or not code.strip():
            return
        button.disabled = True
        self.query_one("#start-error", Static).update("Checking the code…")
        self._check(code)

    @work(thread=True, exclusive=True, exit_on_error=False, group="code")
    def _check(self, code: str) -> None:
        time.sleep(failure_delay(recent_failures(self.study)))
        participant = self.study.participant_for(code)
        if participant is None:
            record_failure(self.study)
        self.app.call_from_thread(self._checked, participant)

    def _checked(self, participant: str | None) -> None:
        self.query_one("#start", Button).disabled = False
        if participant is None or self.loaded is None:
            error = self.query_one("#start-error", Static)
            error.update(
                "That code does not open a session. Check it and try again (capitals, "
                "spaces and dashes do not matter)."
            )
            self.query_one("#code", Input).value = ""
            self.call_after_refresh(error.scroll_visible)
            return
        self.query_one("#start-error", Static).update("")
        app = self.app
        assert isinstance(app, TradeoffApp)
        open_for(app, self.loaded, participant)


class LoadingScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Label("Preparing the questions…", id="title")
        yield LoadingIndicator()


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

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        self.shown_at = time.perf_counter()

    def compose(self) -> ComposeResult:
        s = self.recorder.engine.scenario
        yield Label(s.title, id="title")
        with Horizontal(id="progress-row"):
            yield ProgressBar(total=1, show_eta=False, show_percentage=False, id="progress")
            yield Label("", id="progress-label")
        yield Static("Which one would you rather have?", id="prompt")
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

    def show_question(self) -> None:
        engine = self.recorder.engine
        query = engine.next_query()
        if query is None:
            self.app.push_screen(ReviewScreen(self.recorder))
            return
        self._show_query(query)
        self.shown_at = time.perf_counter()

    def _show_query(self, query: Query) -> None:
        engine = self.recorder.engine
        s = engine.scenario
        self.query_one("#card-a", OptionCard).update(
            render_card("Option A", card_lines(s, query.left, query.right))
        )
        self.query_one("#card-b", OptionCard).update(
            render_card("Option B", card_lines(s, query.right, query.left))
        )
        total = max(engine.expected_total(), engine.answered + 1)
        bar_ = self.query_one("#progress", ProgressBar)
        bar_.update(total=total, progress=engine.answered)
        left = engine.expected_remaining()
        deciding = engine.candidates is not None and engine.spec.stop != "weights"
        self.query_one("#progress-label", Label).update(
            f"question {engine.answered + 1} · {'at most' if deciding else 'about'} {left} to go"
        )

    def action_answer(self, choice: str) -> None:
        if self.recorder.engine.next_query() is None:
            return
        elapsed = (time.perf_counter() - self.shown_at) * 1000
        label = {"left": "Option A", "right": "Option B"}.get(choice, "can't tell")
        save(
            self,
            lambda: self.recorder.answer(Choice(choice), response_ms=elapsed),
            f"Your answer to question {self.recorder.engine.answered + 1} ({label})",
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
            self.notify("Nothing to undo yet.")
            return

        def undone(_: object) -> None:
            self.show_question()
            self.notify("Your last answer was taken back; here is that question again.")

        save(self, self.recorder.undo, "Taking back your last answer", undone)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit_session(self) -> None:
        pause(self.app, self.recorder, "paused")


class ReviewScreen(Screen[None]):
    """What was learned, with uncertainty; answer more or confirm."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "confirm", "Confirm", id="confirm"),
        Binding("m", "more", "10 more", id="more"),
        Binding("u", "undo", "Undo", id="review-undo"),
        Binding("question_mark", "help", "Help", id="review-help"),
        Binding("q", "quit_session", "Save & quit", id="review-quit"),
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
        with VerticalScroll(id="review-body"):
            yield Static(self._why_stopped(), id="why-stopped")
            yield Static(
                f"From your {result.answers} answers, this is how much each aspect weighs for "
                "you over its whole range (finding none to all of a class's cases; each cost "
                "or reward from one end of its range to the other). Bar: best estimate; "
                "shaded and in brackets: the range it lies in with 90% probability.",
                classes="muted",
            )
            names = [f"{c.outcome} {c.label}" for c in s.classes] + [a.name for a in s.attributes]
            shown = result.swing_weights or result.weights
            intervals = result.swing_intervals or [(None, None)] * len(shown)
            for name, w, (lo, hi) in zip(names, shown, intervals, strict=True):
                line = Text(f"{name[:28]:<28} ")
                line.append_text(bar(w, lo, hi))
                # Whole percentages: the intervals do not know more than that.
                rng = f"  {w:4.0%}" + (f" ({lo:.0%}–{hi:.0%})" if lo is not None else "")
                line.append(rng)
                yield Static(line, classes="weight-row")
            yield Static("")
            for sentence in tradeoff_sentences(s, result.weights, engine.space.priors):
                yield Static(f"• {sentence}")
            yield Static("")
            yield Static(self._consistency(), id="consistency")
            with Horizontal(id="review-buttons"):
                yield Button("Confirm", id="confirm-button", variant="primary")
                if self.can_ask_more:
                    yield Button("Answer 10 more questions", id="more-button")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide "10 more" from the footer (and ignore its key) when no question is left."""
        return self.can_ask_more if action == "more" else True

    def _why_stopped(self) -> str:
        engine = self.recorder.engine
        reason = engine.stop_reason()
        if reason == "decided":
            settled = engine.decision()
            sure = "" if settled is None else f" (the pick is {settled[0]:.0%} sure)"
            return (
                "The questions stopped early: your answers already settle which of the "
                f"candidate models is best for you{sure}. More questions would sharpen the "
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

    def _consistency(self) -> Text:
        check = consistency_of(self.recorder.engine)
        return Text(check.sentence(), style="bold red" if check.flagged else "")

    def on_mount(self) -> None:
        self.query_one("#confirm-button", Button).focus()

    def action_help(self) -> None:
        self.app.push_screen(ReviewHelpScreen())

    def action_quit_session(self) -> None:
        pause(self.app, self.recorder, "paused at the review")

    @on(Button.Pressed, "#more-button")
    def action_more(self) -> None:
        save(self, lambda: self.recorder.extend(10), "Asking for 10 more questions", self._back)

    def action_undo(self) -> None:
        if self.recorder.engine.answered == 0:
            return
        save(self, self.recorder.undo, "Taking back your last answer", self._back)

    def _back(self, _: object) -> None:
        self.app.pop_screen()
        screen = self.app.screen
        if isinstance(screen, QuestionScreen):
            screen.show_question()

    @on(Button.Pressed, "#confirm-button")
    def action_confirm(self) -> None:
        save(self, self.recorder.finish, "Your confirmation", self._finished)

    def _finished(self, _: object) -> None:
        s = self.recorder.engine.scenario
        if s.pool is not None:
            self.app.push_screen(ResultScreen(self.recorder))
        else:
            leave(self.app, "Thank you. Your answers are saved in:", str(self.recorder.path))


class ResultScreen(Screen[None]):
    """The candidate models, best for this person first, in their own words and units."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "explore", "Ranking details", id="explore"),
        Binding("question_mark", "help", "Help", id="result-help"),
        Binding("q", "done", "Done", id="done"),
    ]

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        self.pool: Any = None  # loaded once by rank(), reused by explore

    def compose(self) -> ComposeResult:
        yield Label("The models that fit what you value", id="title")
        with VerticalScroll(id="result-body"):
            yield Static("Comparing the candidate models with your answers…", id="result-recommend")
            yield Static("", id="result-status", classes="muted")
            yield DataTable(id="result-table", cursor_type="row", header_height=2)
            with Horizontal(id="result-buttons"):
                yield Button("Done", id="done-button", variant="primary")
                yield Button("Ranking details (for the team)", id="explore-button")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#done-button", Button).focus()
        self.rank()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def rank(self) -> None:
        from tradeoff.ranking import recommend
        from tradeoff.selection import scenario_pool

        engine = self.recorder.engine
        result = engine.result()
        assert result.priors is not None
        try:
            pool = scenario_pool(engine.scenario, Path(self.recorder.header.scenario_path).parent)
            self.pool = pool
            advice = recommend(
                engine.scenario, pool, result.weights, result.priors, draws=engine.weight_draws()
            )
        except InputError as exc:
            self.app.call_from_thread(self._failed, exc.message())
            return
        self.app.call_from_thread(self._show, pool, advice)

    def _failed(self, message: str) -> None:
        self.query_one("#result-recommend", Static).update(Text(message, style="bold red"))

    def _show(self, pool: Any, advice: Any) -> None:
        s = self.recorder.engine.scenario
        sure = (
            ""
            if advice.probability is None
            else f" The chance that it really is the best for you: {advice.probability:.0%}."
        )
        trade = f"\n{advice.trade[0].upper()}{advice.trade[1:]}." if advice.trade else ""
        self.query_one("#result-recommend", Static).update(
            Text.assemble(
                ("Recommended for you: ", "bold"),
                (advice.name, "bold"),
                f". Of the {pool.n} candidate models, it is the one your answers make best."
                f"{sure}{trade}",
            )
        )
        table = self.query_one("#result-table", DataTable)
        chance = advice.p_best is not None
        headers = ["model", *[aspect_header(s, j) for j in range(len(s.weight_names))]]
        table.add_columns(*headers, *(["chance\nbest"] if chance else []))
        order = sorted(range(pool.n), key=lambda i: -advice.expected[i])
        for i in order:
            cells = [
                aspect_cell(s, j, float(pool.values[i, j])) for j in range(pool.values.shape[1])
            ]
            best = [f"{advice.p_best[i]:.0%}"] if chance else []
            name = Text(pool.names[i], style="bold") if i == advice.index else pool.names[i]
            table.add_row(name, *cells, *best)
        self.query_one("#result-status", Static).update(
            f"\nAll {pool.n} candidates, best for you first. {table_legend(s)}"
            + (
                " Chance best: how likely each is the best for you, given your answers."
                if chance
                else ""
            )
        )

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_done(self) -> None:
        self._done()

    @on(Button.Pressed, "#explore-button")
    def action_explore(self) -> None:
        """Open the practitioner's selection screen on this session."""
        from tradeoff.selection import scenario_pool, select_for_stakeholders, stakeholder_of
        from tradeoff.tui.select import SelectionScreen

        rec = self.recorder
        try:
            scenario = rec.engine.scenario
            pool = self.pool or scenario_pool(scenario, Path(rec.header.scenario_path).parent)
            person = stakeholder_of(rec.header, rec.engine, rec.path)
            selection = select_for_stakeholders(scenario, [person], pool)
        except InputError as exc:
            self.notify(exc.message(), severity="error")
            return
        self.app.push_screen(SelectionScreen(selection, scenario))

    @on(Button.Pressed, "#done-button")
    def _done(self) -> None:
        leave(self.app, "Thank you. Your answers are saved in:", str(self.recorder.path))


# --------------------------------------------------------------------------------------
# The app
# --------------------------------------------------------------------------------------


class TradeoffApp(App[None]):
    """The stakeholder's app."""

    CSS_PATH = "app.tcss"
    TITLE = "tradeoff"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="quit", show=False)
    ]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.recorder: Recorder | None = None
        self.farewell: tuple[str, str] | None = None
        ignore_file_size_signal()

    def on_mount(self) -> None:
        if self.settings.resume is not None:
            self.resume(self.settings.resume, None, log=self.settings.resume_log)
        elif self.settings.study is not None:
            self.push_screen(StudyStartScreen(self.settings, self.settings.study))
        else:
            self.push_screen(StartScreen(self.settings))

    # Starting and resuming build engines (population, replay): done in a worker.

    def begin(self, loaded: LoadedScenario, participant: str) -> None:
        self.push_screen(LoadingScreen())
        self._open(
            lambda: start_session(
                loaded,
                participant,
                self.settings.sessions_dir,
                spec=self.settings.overrides.apply(loaded.scenario.elicitation),
                seed=self.settings.seed,
                cache_dir=self.settings.cache_dir,
            )
        )

    def resume(
        self, path: Path, current: LoadedScenario | None, *, log: SessionLog | None = None
    ) -> None:
        """Continue a session (``log``: the file as already read, so it is read once)."""
        try:
            log = log if log is not None else read_session(path)
        except InputError as exc:
            self.exit(message=exc.message(), return_code=2)
            return
        scenario_path = Path(log.header.scenario_path)
        if current is None and scenario_path.is_file():
            try:
                current = load_scenario(scenario_path)
            except InputError:
                current = None
        if current is not None and current.sha256 != log.header.scenario_sha256:

            def decided(use: bool | None) -> None:
                if use:
                    self.push_screen(LoadingScreen())
                    self._open(
                        lambda: resume_session(
                            path, use_embedded=True, log=log, cache_dir=self.settings.cache_dir
                        )
                    )
                elif self.settings.resume is not None:
                    self.exit(message="Not resumed: the scenario file has changed.", return_code=2)

            self.push_screen(
                ConfirmScreen(
                    f"The scenario file {current.path} has changed since this session "
                    "started. Continue with the scenario as it was when you started?",
                    "Continue with the recorded scenario",
                    "Cancel",
                ),
                decided,
            )
            return
        self.push_screen(LoadingScreen())
        self._open(
            lambda: resume_session(
                path, current=current, log=log, cache_dir=self.settings.cache_dir
            )
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="open")
    def _open(self, make: Any) -> None:
        try:
            recorder = make()
            recorder.engine.space.warm()
        except InputError as exc:
            message = exc.message()
            self.call_from_thread(lambda: self.exit(message=message, return_code=2))
            return
        except (OSError, SessionWriteError) as exc:
            message = f"The session could not be opened: {exc}"
            self.call_from_thread(lambda: self.exit(message=message, return_code=2))
            return
        self.call_from_thread(self._opened, recorder)

    def _opened(self, recorder: Recorder) -> None:
        self.recorder = recorder
        for warning in recorder.warnings:
            self.notify(warning, severity="warning", timeout=10)
        self.switch_screen(QuestionScreen(recorder))

    def on_unmount(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


def make_app(
    scenario: str | Path,
    *,
    scenarios_dir: str | Path | None = None,
    sessions_dir: str | Path = "sessions",
    participant: str | None = None,
    resume: str | Path | None = None,
    resume_log: SessionLog | None = None,
    overrides: SpecOverrides | None = None,
    seed: int = 0,
    study: Study | None = None,
) -> TradeoffApp:
    """Build the app the same way for the command line, the browser and tests.

    ``overrides`` (strategy, budget) apply to whichever scenario is chosen. With a
    ``study``, its scenario and sessions folder are used and the start screen asks for an
    access code.
    """
    if study is not None:
        scenario, sessions_dir = study.scenario_path, study.sessions_dir
    scenario = Path(scenario)
    return TradeoffApp(
        Settings(
            scenario=scenario,
            scenarios_dir=Path(scenarios_dir) if scenarios_dir else scenario.parent,
            sessions_dir=Path(sessions_dir),
            participant=participant,
            resume=None if resume is None else Path(resume),
            resume_log=resume_log,
            overrides=overrides or SpecOverrides(),
            seed=seed,
            study=study,
            cache_dir=None if study is None else study.cache_dir,
        )
    )
