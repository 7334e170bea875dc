"""Who a study's code lets in at a terminal (``tradeoff elicit --study``), as on the study's
page: someone withdrawn, erased or finished opens no session; an unfinished one is taken up
where it stopped (a participant takes part once, no second session offered); saving to go
on later says the code goes on (no page to open); the study's information is read and agreed to
(or declined) as on its page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from tradeoff.record.log import read_session
from tradeoff.study.export_rows import served, session_language
from tradeoff.study.folder import Study, create_study
from tradeoff.study.withdrawals import withdraw
from tradeoff.tui import make_app
from tradeoff.tui.consent import ConsentScreen
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import StudyStartScreen

from ..conftest import small_scenario_file
from .test_tui import SIZE, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]


async def enter(study: Study, scenario: Path, code: str, answers: int, quit_key: str) -> object:
    """Enter ``code`` at the study's start screen, answer ``answers`` questions (a), press
    ``quit_key``; the app (its farewell read after)."""
    app = make_app(scenario, study=study)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        pilot.app.screen.query_one("#code", Input).value = code
        await pilot.press("enter")
        if answers < 0:  # refused: the start screen says why
            for _ in range(50):
                await pilot.pause(0.05)
                said = str(pilot.app.screen.query_one("#start-error").render())
                if said and not said.startswith("Checking"):
                    return said
            return ""
        await wait_for(pilot, QuestionScreen)
        for _ in range(answers):
            await pilot.press("a")
            await pilot.pause()
        await pilot.press(quit_key)
        await pilot.pause()
    return app


async def test_a_withdrawn_participants_code_opens_no_session(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    study, codes = create_study(scenario, ["p01", "p02"], tmp_path / "study")
    withdraw(study, "p01")
    said = await enter(study, scenario, codes["p01"], -1, "q")
    assert isinstance(said, str) and said.startswith("You withdrew from this study on ")
    assert not list((study.sessions_dir / "p01").glob("*.jsonl"))


async def test_an_unfinished_session_goes_on_where_it_stopped(
    tmp_path: Path,
) -> None:
    scenario = small_scenario_file(tmp_path)
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    first = await enter(study, scenario, codes["p01"], 2, "q")
    farewell = getattr(first, "farewell", None)
    assert farewell is not None and "enter your access code" in farewell[0]
    # In plain words, the page's: it said "start this again as it was started for you".
    assert farewell[0].endswith("you will continue where you left off.")
    assert "page" not in farewell[0] and farewell[1] == ""  # no file or command shown
    await enter(study, scenario, codes["p01"], 1, "q")  # no choice offered: on where it was
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    assert sum(e.type == "answer" for e in read_session(path).events) == 3


async def consent_step(
    study: Study, scenario: Path, code: str, agree: bool, answers: int = 1
) -> tuple[str, str]:
    """Enter ``code``; at the consent screen press I agree (then answer ``answers``
    questions and save) or I do not agree: (the consent screen's title and the version
    line under it, what the start screen then says)."""
    app = make_app(scenario, study=study)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        pilot.app.screen.query_one("#code", Input).value = code
        await pilot.press("enter")
        await wait_for(pilot, ConsentScreen)
        screen = pilot.app.screen
        title = str(screen.query_one("#title").render())
        title += " | " + str(screen.query_one("#consent-version").render())
        text = " ".join(str(w.render()) for w in screen.query("MarkdownParagraph"))
        assert "You may stop at any time" in text
        await pilot.click("#agree" if agree else "#decline")
        if not agree:
            await wait_for(pilot, StudyStartScreen)
            await pilot.pause()
            return title, str(pilot.app.screen.query_one("#start-error").render())
        await wait_for(pilot, QuestionScreen)
        for _ in range(answers):
            await pilot.press("a")
            await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    return title, ""


async def test_the_consent_is_read_and_agreed_to_at_the_terminal_as_on_the_page(
    tmp_path: Path,
) -> None:
    """Agreeing opens the session with the consent record and how they came in; a new
    version is asked before the next question and written into the same session;
    declining is noted in the study's entries and records nothing else."""
    from tradeoff.study.consent_added import add_consent_version
    from tradeoff.study.declines import declined_consent
    from tradeoff.study.entries import EntryLog

    scenario = small_scenario_file(tmp_path)
    consent = tmp_path / "information.md"
    consent.write_text("# About the study\n\nYou may stop at any time.\n")
    study, codes = create_study(scenario, ["p01", "p02"], tmp_path / "study", consent=consent)
    title, _ = await consent_step(study, scenario, codes["p01"], agree=True)
    assert title == "Before you start | Version 1. Please read this before you decide."
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    log = read_session(path)
    assert log.consent is not None and log.consent.version == "1"
    assert log.entry is not None and log.entry.via == "code"
    # The export says its times are this app's, not the server's, and its language.
    assert not served(log) and session_language(log) == "en"
    # A new version: asked again before the next question, into the same session.
    (tmp_path / "v2.md").write_text("# About the study\n\nYou may stop at any time, still.\n")
    add_consent_version(study.path, tmp_path / "v2.md", "2")
    title, _ = await consent_step(study, scenario, codes["p01"], agree=True)
    assert title == (
        "The study's information has changed | Version 2. Please read this before you decide."
    )
    log = read_session(path)
    assert [c.version for c in log.consents] == ["1", "2"]
    assert sum(e.type == "answer" for e in log.events) == 2
    # Declining: noted for the coordinator, no session.
    _, said = await consent_step(study, scenario, codes["p02"], agree=False)
    assert said.startswith("You chose not to take part. Only that choice was noted")
    assert not list((study.sessions_dir / "p02").glob("*.jsonl"))
    log_of_entries = EntryLog(study.path)
    assert "p02" in declined_consent(log_of_entries.refresh())


async def test_declining_a_new_consent_text_offers_to_withdraw_as_on_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the page, declining a new version of the consent text leads to what withdrawing
    means and a confirmation; at a terminal it only said to ask the coordinator. Now the
    same: going back (or Esc) returns to the text and records nothing; a withdrawal that
    cannot be written is said, to try again; confirming records the withdrawal as ``study
    withdraw`` does, and the code opens nothing more."""
    from tradeoff.errors import InputError
    from tradeoff.study.consent_added import add_consent_version
    from tradeoff.study.withdrawals import withdrawn
    from tradeoff.tui.consent import WithdrawScreen

    scenario = small_scenario_file(tmp_path)
    consent = tmp_path / "information.md"
    consent.write_text("# About the study\n\nYou may stop at any time.\n")
    study, codes = create_study(scenario, ["p01"], tmp_path / "study", consent=consent)
    await consent_step(study, scenario, codes["p01"], agree=True)
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    before = path.read_bytes()
    (tmp_path / "v2.md").write_text("# About the study\n\nYou may stop at any time, still.\n")
    add_consent_version(study.path, tmp_path / "v2.md", "2")
    app = make_app(scenario, study=study)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StudyStartScreen)
        pilot.app.screen.query_one("#code", Input).value = codes["p01"]
        await pilot.press("enter")
        await wait_for(pilot, ConsentScreen)
        await pilot.click("#decline")
        await wait_for(pilot, WithdrawScreen)
        screen = pilot.app.screen
        assert str(screen.query_one("#title").render()) == "Withdraw from the study?"
        said = " ".join(str(screen.query_one("#withdraw-means").render()).split())
        assert said.startswith("If you withdraw, nothing more is recorded, and the study's")
        assert said.endswith("Your access code will no longer open the study.")
        for back in ("escape", "#back"):  # no: back to the text, nothing recorded
            await (pilot.press(back) if back == "escape" else pilot.click(back))
            await wait_for(pilot, ConsentScreen)
            assert withdrawn(study) == {} and path.read_bytes() == before
            await pilot.click("#decline")
            await wait_for(pilot, WithdrawScreen)

        def full(study: Study, participant: str) -> None:
            raise InputError.single(study.path, "", "could not be written", "free some space.")

        monkeypatch.setattr("tradeoff.tui.consent.withdraw", full)
        await pilot.click("#withdraw")
        await pilot.pause()
        told = " ".join(str(pilot.app.screen.query_one("#withdraw-error").render()).split())
        assert told.startswith("Your withdrawal could not be recorded. Please try again")
        assert isinstance(pilot.app.screen, WithdrawScreen) and withdrawn(study) == {}
        monkeypatch.undo()
        await pilot.pause(0.3)  # a button takes no second click while it shows the first
        await pilot.click("#withdraw")
        await wait_for(pilot, StudyStartScreen)
        await pilot.pause()
        told = str(pilot.app.screen.query_one("#start-error").render())
        assert " ".join(told.split()).startswith("You have withdrawn from this study.")
        assert pilot.app.screen.query_one("#code", Input).value == ""
    assert list(withdrawn(study)) == ["p01"]
    assert path.read_bytes() == before  # their session kept, no consent added
    said = await enter(study, scenario, codes["p01"], -1, "q")
    assert isinstance(said, str) and said.startswith("You withdrew from this study on ")


async def test_a_new_session_starts_from_the_studys_population_prior(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on the study's page (:meth:`tradeoff.web.held.Participants.start`): the prior
    the study has pooled so far is what the new session's weights start from."""
    import tradeoff.tui.sessions as app_module

    scenario = small_scenario_file(tmp_path)
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    asked: list[Path] = []
    started: list[object] = []
    real = app_module.start_session

    def prior(folder: Path) -> None:
        asked.append(Path(folder))

    def start(*args: object, **kwargs: object) -> object:
        started.append(kwargs.get("start", "not given"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(app_module, "current_prior", prior)
    monkeypatch.setattr(app_module, "start_session", start)
    await enter(study, scenario, codes["p01"], 1, "q")
    assert asked == [study.path] and started == [None]


async def test_the_code_is_shown_as_it_is_typed(tmp_path: Path) -> None:
    """As on the page: a wrong code is answered "Check it and try again", which a row of
    dots (the field hid what was typed) did not let anyone do."""
    scenario = small_scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    app = make_app(scenario, study=study)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        await pilot.press(*"ZX9Q-WV")
        await pilot.pause()
        assert "ZX9Q-WV" in pilot.app.export_screenshot()


async def test_what_was_said_of_a_code_goes_when_another_is_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "That code does not open a session" (or "You chose not to take part") stayed under
    the field while the next code was typed, and for the next person at the terminal."""
    monkeypatch.setattr("tradeoff.tui.screens.start.time.sleep", lambda _: None)
    scenario = small_scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    app = make_app(scenario, study=study)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        error = pilot.app.screen.query_one("#start-error")
        await pilot.press(*"AAAA-BBBB", "enter")
        for _ in range(100):
            await pilot.pause(0.05)
            if "does not open a session" in str(error.render()):
                break
        assert "does not open a session" in str(error.render())
        assert pilot.app.screen.query_one("#code", Input).value == ""
        await pilot.pause()
        assert "does not open a session" in str(error.render())  # kept while nothing is typed
        await pilot.press("Z")
        await pilot.pause()
        assert str(error.render()) == ""


async def test_the_consent_screen_says_its_keys_and_only_what_is_true(tmp_path: Path) -> None:
    """Under a text longer than the screen the footer showed no key (the text's own page
    keys, which it has the focus of, are not shown): "More text" is offered while it does
    not fit. The question said "Nothing is recorded before you agree", but declining is
    noted; and it now says how to reach the buttons by keys (Enter on the text did
    nothing)."""
    scenario = small_scenario_file(tmp_path)
    consent = tmp_path / "information.md"
    consent.write_text("# About the study\n\n" + "You may stop at any time.\n\n" * 30)
    study, codes = create_study(scenario, ["p01"], tmp_path / "study", consent=consent)
    for size, long in (((80, 24), True), ((140, 60), False)):
        if not long:
            consent.write_text("# About the study\n\nYou may stop at any time.\n")
            study, codes = create_study(scenario, ["p01"], tmp_path / "short", consent=consent)
        app = make_app(scenario, study=study)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, StudyStartScreen)
            pilot.app.screen.query_one("#code", Input).value = codes["p01"]
            await pilot.press("enter")
            await wait_for(pilot, ConsentScreen)
            screen = pilot.app.screen
            asked = str(screen.query_one("#consent-ask").render())
            assert asked.startswith("Do you agree to take part? No answer is recorded before")
            assert "Tab goes to the buttons" in asked
            await pilot.pause()
            keys = screen.active_bindings.values()  # what the footer shows
            shown = [b.binding.description for b in keys if b.binding.show]
            assert ("More text" in shown) is long, shown
            body = screen.query_one("#consent-body")
            await pilot.press("pagedown")
            await pilot.pause()
            assert (body.scroll_y > 0) is long


async def test_a_participant_who_confirms_is_thanked_as_on_the_page(tmp_path: Path) -> None:
    """The page thanks a study's participant and says whom to ask; the terminal showed them
    the file their answers are in and, for a scenario with a pool, the ranking of every
    candidate with the team's "Ranking details" behind it."""
    from tradeoff.tui.screens.result import ResultScreen
    from tradeoff.tui.screens.review import ReviewScreen

    from ..conftest import SCENARIOS

    (tmp_path / "pools").mkdir()
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", tmp_path / "pools")
    scenario = small_scenario_file(
        tmp_path, "breast-cancer-triage", **{"budget = 30": "budget = 3"}
    )
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    app = make_app(scenario, study=study)
    seen = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        pilot.app.screen.query_one("#code", Input).value = codes["p01"]
        await pilot.press("enter")
        await wait_for(pilot, QuestionScreen)
        await pilot.press("a", "b", "a")
        await wait_for(pilot, ReviewScreen)
        await pilot.press("c")
        for _ in range(20):
            await pilot.pause(0.05)
            seen.append(type(pilot.app.screen))
    assert ResultScreen not in seen
    assert app.farewell is not None
    text, line = app.farewell
    assert text.startswith("Thank you. Your answers are saved and complete.")
    assert "coordinator" in text and line == ""  # no file shown
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    assert read_session(path).finished


async def test_a_study_terminal_has_no_command_palette(tmp_path: Path) -> None:
    """ "^p palette" in every footer meant nothing to a participant, and the palette's "Quit
    the application as soon as possible" left without saying how to go on later (its
    "Screenshot" wrote their screen into the folder the app runs in)."""
    from textual.command import CommandPalette

    from .test_tui_curves import footer_keys

    scenario = small_scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    app = make_app(scenario, study=study)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        assert "palette" not in await footer_keys(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, CommandPalette)


async def test_closing_after_a_session_that_did_not_open_says_why(tmp_path: Path) -> None:
    """A session open in another window: the dialog's Close ended the app without a word,
    and the reason, printed to standard error while the app ran, was never seen. Now the
    words stay on the terminal after the app, the reason above them."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.opening import start_session
    from tradeoff.tui.dialogs import OPEN_ELSEWHERE, ConfirmScreen

    scenario = small_scenario_file(tmp_path)
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    with start_session(load_scenario(study.scenario_path), "p01", study.sessions_dir):
        app = make_app(scenario, study=study)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, StudyStartScreen)
            pilot.app.screen.query_one("#code", Input).value = codes["p01"]
            await pilot.press("enter")
            await wait_for(pilot, ConfirmScreen)
            await pilot.click("#no")
            await pilot.pause()
            reason = str(pilot.app._exit_renderables[0])
    assert app.return_code == 2 and app.farewell == (OPEN_ELSEWHERE, "")
    assert "p01" in reason


async def test_a_terminal_session_notes_the_apps_language_beside_its_texts(
    tmp_path: Path,
) -> None:
    """A study whose consent text is German: the consent records the text's language, and
    the session notes the language its questions were shown in, the app's English, so the
    export's language column says "en" (it read the consent's "de" before)."""
    scenario = small_scenario_file(tmp_path)
    consent = tmp_path / "information.md"
    consent.write_text("# Über die Studie\n\nYou may stop at any time.\n")
    study, codes = create_study(
        scenario, ["p01"], tmp_path / "study", consent=consent, language="de"
    )
    await consent_step(study, scenario, codes["p01"], agree=True)
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    log = read_session(path)
    assert log.consent is not None and log.consent.language == "de"
    assert session_language(log) == "en"
