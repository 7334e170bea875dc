"""The Textual app a stakeholder answers in.

The app only wires: it opens the screens (:mod:`tradeoff.tui.screens`, one module each, none
importing another) in answer to the messages they post (:mod:`tradeoff.tui.common`), and starts
or resumes sessions through :mod:`tradeoff.study.opening`. The screens show the engine's
questions and pass the answers on: every answer goes through
:class:`~tradeoff.record.recorder.Recorder`, which writes it to disk before the next question
appears. Slow work (building the population, replaying a session, ranking a pool) runs in
thread workers; widgets are only touched on the UI thread."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType

from tradeoff.ask.scenario import LoadedScenario, SpecOverrides, load_scenario
from tradeoff.errors import InputError
from tradeoff.limits import ignore_file_size_signal
from tradeoff.record.log import SessionLog, read_session, unfinished_sessions
from tradeoff.record.recorder import Recorder, SessionLocked, SessionWriteError
from tradeoff.record.records import ConsentRecord
from tradeoff.study.cache import user_cache_dir
from tradeoff.study.folder import Study
from tradeoff.study.opening import resume_session
from tradeoff.tui.common import (
    BackToQuestions,
    Confirmed,
    Farewell,
    OpenFor,
    PauseSession,
    QuestionsDone,
    ResumeFile,
    Settings,
)
from tradeoff.tui.dialogs import NOT_OPENED, OPEN_ELSEWHERE, ConfirmScreen
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.result import ResultScreen
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.tui.screens.start import (
    PREPARING_RESUME,
    LoadingScreen,
    StartScreen,
    StudyStartScreen,
)
from tradeoff.tui.sessions import finished_words, new_session, paused_words

__all__ = ["Settings", "TradeoffApp", "make_app"]


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

    def begin(
        self, loaded: LoadedScenario, participant: str, consent: ConsentRecord | None = None
    ) -> None:
        self.push_screen(LoadingScreen())
        self._open(lambda: new_session(self.settings, loaded, participant, consent))

    def resume(
        self,
        path: Path,
        current: LoadedScenario | None,
        *,
        log: SessionLog | None = None,
        again: ConsentRecord | None = None,
    ) -> None:
        """Continue a session (``log``: the file as already read, so it is read once;
        ``again``: a study's consent just given to its newest text, written into it)."""
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
                    self.push_screen(LoadingScreen(PREPARING_RESUME))
                    self._open(
                        lambda: resume_session(
                            path, use_embedded=True, log=log, cache_dir=self.settings.cache_dir
                        ),
                        again,
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
        self.push_screen(LoadingScreen(PREPARING_RESUME))
        self._open(
            lambda: resume_session(
                path, current=current, log=log, cache_dir=self.settings.cache_dir
            ),
            again,
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="open")
    def _open(self, make: Callable[[], Recorder], again: ConsentRecord | None = None) -> None:
        try:
            recorder = make()
            if again is not None:  # a study's consent given again, to its newest text
                recorder.consent_again(again)
            recorder.engine.space.warm()
        except InputError as exc:
            message, locked = exc.message(), isinstance(exc, SessionLocked)
            self.call_from_thread(lambda: self._not_opened(message, locked))
            return
        except (OSError, SessionWriteError) as exc:
            message = f"The session could not be opened: {exc}"
            self.call_from_thread(lambda: self._not_opened(message, False))
            return
        self.call_from_thread(self._opened, recorder)

    def _not_opened(self, message: str, locked: bool) -> None:
        """A session that did not open: the app ends with the reason; a study's participant
        is told in words what to do and goes back to the code, or closes the app, which says
        the words again below the reason (a print while the app runs is never seen)."""
        if self.settings.study is None:
            self.exit(message=message, return_code=2)
            return
        self.pop_screen()  # the loading screen: back to the code
        words = OPEN_ELSEWHERE if locked else NOT_OPENED

        def decided(back: bool | None) -> None:
            if back is False:
                self.farewell = (words, "")
                self.exit(message=Text(message), return_code=2)

        self.push_screen(ConfirmScreen(words, "Back to the code", "Close"), decided)

    def _opened(self, recorder: Recorder) -> None:
        self.recorder = recorder
        for warning in recorder.warnings:
            self.notify(warning, severity="warning", timeout=10)
        checks = () if self.settings.study is None else self.settings.study.attention_checks
        self.switch_screen(QuestionScreen(recorder, checks))

    # What comes next: the screens post these, the app decides.

    @on(OpenFor)
    def _open_for(self, message: OpenFor) -> None:
        """Start the participant's session, offering to continue an unfinished one (the
        default) or to start again (a study's participant takes part once: on where they were)."""
        loaded, participant = message.loaded, message.participant
        found = unfinished_sessions(self.settings.sessions_dir, participant, loaded.scenario.id)
        if not found:
            self.begin(loaded, participant, message.consent)
            return
        if self.settings.study is not None:
            self.resume(found[-1], loaded, again=message.consent)
            return

        def decided(resume: bool | None) -> None:
            if resume:
                self.resume(found[-1], loaded)
            elif resume is False:
                self.begin(loaded, participant)

        self.push_screen(
            ConfirmScreen(
                f"{participant} has an unfinished session on this scenario. Continue it where "
                "you left off, or start again from the first question? (The unfinished "
                "session stays on disk either way.)",
                "Continue where I left off",
                "Start a new session",
            ),
            decided,
        )

    @on(ResumeFile)
    def _resume_file(self, message: ResumeFile) -> None:
        self.resume(message.path, message.current)

    @on(QuestionsDone)
    def _questions_done(self, message: QuestionsDone) -> None:
        self.push_screen(ReviewScreen(message.recorder))

    @on(BackToQuestions)
    def _back_to_questions(self, message: BackToQuestions) -> None:
        self.pop_screen()
        if isinstance(self.screen, QuestionScreen):
            self.screen.show_question(message.note)

    @on(Confirmed)
    def _confirmed(self, message: Confirmed) -> None:
        rec, study = message.recorder, self.settings.study_path
        if rec.engine.scenario.pool is not None and study is None:  # a study's page ranks none
            self.push_screen(ResultScreen(rec))
        else:
            self.leave(*finished_words(rec.path, study))

    @on(PauseSession)
    def _pause_session(self, message: PauseSession) -> None:
        with contextlib.suppress(SessionWriteError):  # a note only: the answers are on disk
            message.recorder.note(message.note)
        self.leave(*paused_words(message.recorder.path, self.settings.study_path))

    @on(Farewell)
    def _farewell(self, message: Farewell) -> None:
        self.leave(message.text, message.line, return_code=message.return_code)

    def leave(self, text: str, line: str, *, return_code: int = 0) -> None:
        """Quit with a farewell: ``text``, then ``line`` (a file or a command) printed whole
        on a line of its own by the command line, so it can be copied at any width."""
        self.farewell = (text, line)
        self.exit(return_code=return_code)

    def on_unmount(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


class StudyApp(TradeoffApp):
    """The app at a study's terminal: no command palette (it quit without saying how to go
    on later, wrote screenshots where it runs, and "^p palette" said nothing to anyone)."""

    ENABLE_COMMAND_PALETTE = False


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
    """Build the app the same way for the command line and tests.

    ``overrides`` (strategy, budget) apply to whichever scenario is chosen. With a ``study``
    (:class:`StudyApp`), its scenario and sessions folder are used and the start screen asks
    for an access code. Populations and the pool's rows are memory-mapped from the study's
    cache, or outside a study from the user's (:func:`tradeoff.study.cache.user_cache_dir`)."""
    if study is not None:
        scenario, sessions_dir = study.scenario_path, study.sessions_dir
    scenario = Path(scenario)
    return (TradeoffApp if study is None else StudyApp)(
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
            cache_dir=user_cache_dir() if study is None else study.cache_dir,
        )
    )
