"""The start screens: pick a scenario and say who you are, or (in a study) enter an access
code; and the screen shown while a session is prepared."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, LoadingIndicator, Select, Static

from tradeoff.ask.scenario import LoadedScenario, SpecOverrides, load_scenario
from tradeoff.ask.words import candidates_noun
from tradeoff.errors import InputError
from tradeoff.record.log import unfinished_sessions
from tradeoff.record.records import ConsentRecord, check_participant
from tradeoff.study.arms import arm_session, assigned_scenario, planned_length
from tradeoff.study.attempts import record_failure, wrong_code_delay
from tradeoff.study.folder import Study
from tradeoff.study.withdrawals import closed_to
from tradeoff.tui.common import (
    NO_WRONG_ANSWERS,
    TYPE_THE_CODE,
    OpenFor,
    ResumeFile,
    Settings,
    participant_problem,
    reflow,
)
from tradeoff.tui.consent import ConsentScreen, consent_due
from tradeoff.tui.forms import CodeFormScreen, FormScreen, StartForm, title
from tradeoff.tui.scrolling import TextScroll


def describe(
    screen: Screen[None],
    loaded: LoadedScenario,
    overrides: SpecOverrides,
    study: Study | None = None,
) -> None:
    """Fill a start screen's ``#title``, ``#description`` and ``#expect`` (a study's arms:
    the length of the one that asks the most, as the study's page says it)."""
    s = loaded.scenario
    screen.query_one("#title", Label).update(title(s.aspects_only))
    screen.query_one("#description", Static).update(
        Text.assemble((s.title + "\n", "bold"), reflow(s.description))
    )
    arms = [] if study is None else [arm_session(study, a) for a in study.arms]
    plans = [(a.scenario, spec) for a, spec in arms] or [(s, overrides.apply(s.elicitation))]
    expected, decides = planned_length(plans)
    count = (
        f"At most {expected} questions (fewer once your answers settle which "
        f"{candidates_noun(s, plural=False)} suits you)"
        if decides
        else f"About {expected} questions"
    )
    screen.query_one("#expect", Static).update(
        f"{count}, a few minutes. Every answer is saved at once; you can stop and come back."
    )


class StartScreen(FormScreen):
    """Pick a scenario, say who you are, start or resume."""

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
        yield Label(title(), id="title")
        with TextScroll(id="start-body"):
            options = [(p.stem, str(p)) for p in self.scenario_files()]
            yield Label("Scenario")
            yield Select(
                options, value=str(self.settings.scenario), allow_blank=False, id="scenario"
            )
            yield Static("", id="description")
            yield Static("", id="expect", classes="muted")
            yield Static(NO_WRONG_ANSWERS)
        with StartForm(id="start-form"):
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
        self.query_one("#participant", Input).focus(scroll_visible=False)  # open at the top

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

    def _unfinished(self, participant: str) -> list[Path]:
        assert self.loaded is not None
        return unfinished_sessions(self.settings.sessions_dir, participant, self.loaded.scenario.id)

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
        button.disabled = not self._unfinished(participant)

    @on(Select.Changed, "#scenario")
    def _scenario_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._load(Path(event.value))

    @on(Input.Changed, "#participant")
    def _participant_changed(self) -> None:
        self._check_resume()

    def _participant(self) -> str | None:
        """The id typed, or ``None`` after saying, beside the field, what to type."""
        field = self.query_one("#participant", Input)
        value = field.value.strip()
        try:
            return check_participant(value)
        except InputError as exc:
            self.query_one("#start-error", Static).update(participant_problem(value, exc))
            field.focus()
            return None

    @on(Input.Submitted, "#participant")
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        participant = self._participant()
        if participant is not None and self.loaded is not None:
            self.post_message(OpenFor(self.loaded, participant))

    @on(Button.Pressed, "#resume")
    def _resume(self) -> None:
        participant = self._participant()
        if participant is None or self.loaded is None:
            return
        found = self._unfinished(participant)
        if found:
            self.post_message(ResumeFile(found[-1], self.loaded))


class StudyStartScreen(CodeFormScreen):
    """A study's start: the scenario, and the access code that opens the participant's own
    session (new or resumed) and nothing else. A right code opens at once; a wrong one
    gets a plain message after a delay that grows with the study's recent wrong codes
    (:func:`tradeoff.study.attempts.wrong_code_delay`)."""

    def __init__(self, settings: Settings, study: Study) -> None:
        super().__init__()
        self.settings = settings
        self.study = study
        self.loaded: LoadedScenario | None = None

    def compose(self) -> ComposeResult:
        yield Label(title(), id="title")
        with TextScroll(id="start-body"):
            yield Static("", id="description")
            yield Static("", id="expect", classes="muted")
            yield Static(NO_WRONG_ANSWERS)
        with StartForm(id="start-form"):
            yield Label("Your access code (from the study's coordinator)")
            # Shown as typed, as on the page: "Check it" is said of a wrong code.
            yield Input(placeholder="e.g. K7QM-2XVD-9HJK-AB01", id="code")
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
        describe(self, self.loaded, self.settings.overrides, self.study)
        self.query_one("#code", Input).focus(scroll_visible=False)  # open at the top

    @on(Input.Changed, "#code")
    def _typed(self, event: Input.Changed) -> None:
        """What was said of the last code goes once another is typed (not while one is
        checked, nor when a refusal empties the field): it is not about the new one."""
        if event.value and not self.query_one("#start", Button).disabled:
            self.query_one("#start-error", Static).update("")

    @on(Input.Submitted, "#code")
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        button = self.query_one("#start", Button)
        field = self.query_one("#code", Input)
        if button.disabled or self.loaded is None:
            return
        if not field.value.strip():
            self.query_one("#start-error", Static).update(TYPE_THE_CODE)
            field.focus()
            return
        button.disabled = True
        self.query_one("#start-error", Static).update("Checking the code…")
        self._check(field.value)

    @work(thread=True, exclusive=True, exit_on_error=False, group="code")
    def _check(self, code: str) -> None:
        participant = self.study.participant_for(code)
        if participant is None:
            delay = wrong_code_delay(self.study, None)  # at a terminal: every source counts
            with contextlib.suppress(OSError):  # an unwritable log: no endless wait
                record_failure(self.study)
            time.sleep(delay)
        loaded = self.loaded
        closed = None if participant is None else closed_to(self.study, participant)
        if participant is not None and closed is None and self.study.arms:  # assigned now
            loaded = assigned_scenario(self.study, participant)
        due = None
        if participant is not None and closed is None and loaded is not None:
            due = consent_due(self.study, participant, loaded.scenario.id)
        self.app.call_from_thread(self._checked, participant, loaded, closed, due)

    def _checked(
        self,
        participant: str | None,
        loaded: LoadedScenario | None,
        closed: str | None = None,
        due: tuple[tuple[str, str, str, str], bool] | None = None,
    ) -> None:
        self.query_one("#start", Button).disabled = False
        if closed is not None or participant is None or loaded is None:
            self.query_one("#start-error", Static).update(
                closed  # erased, withdrawn or finished: no session opens
                or "That code does not open a session. Check it and try again (capitals, "
                "spaces and dashes do not matter)."
            )
            self.query_one("#code", Input).value = ""
            return
        self.query_one("#start-error", Static).update("")
        if due is None:
            self.post_message(OpenFor(loaded, participant))
            return

        def chosen(given: ConsentRecord | str | None) -> None:
            if isinstance(given, ConsentRecord):  # agreed: the session opens with it
                self.post_message(OpenFor(loaded, participant, given))
                return
            self.query_one("#start-error", Static).update(given or "")
            self.query_one("#code", Input).value = ""

        self.app.push_screen(ConsentScreen(self.study, participant, *due), chosen)


#: What the loading screen says while a new session's first question is prepared.
PREPARING_FIRST = "Preparing the first question…"
#: What it says while an unfinished session is opened again.
PREPARING_RESUME = "Opening your session where you left off…"


class LoadingScreen(Screen[None]):
    """Shown while a session is prepared (population, replay) in a worker: what is being
    prepared, and that it takes a moment."""

    def __init__(self, text: str = PREPARING_FIRST) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Label(self.text, id="title")
        yield Static("This can take a few seconds.", id="loading-note", classes="muted")
        yield LoadingIndicator()
