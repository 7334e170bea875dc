"""The stakeholder's app, driven by Pilot: every key path, clicks, resume, snapshots."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.tui import make_app
from tradeoff.tui.dialogs import HelpScreen
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.tui.screens.start import StartScreen

from ..conftest import small_scenario_file

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]

SIZE = (100, 32)


def scenario_file(tmp_path: Path, budget: int = 12) -> Path:
    return small_scenario_file(tmp_path, **{"budget = 30": f"budget = {budget}"})


def app_for(tmp_path: Path, **kwargs: Any) -> Any:
    kwargs.setdefault("participant", "dr-lee")
    return make_app(
        scenario_file(tmp_path, kwargs.pop("budget", 12)),
        sessions_dir=tmp_path / "sessions",
        **kwargs,
    )


async def wait_for(pilot: Pilot[Any], cls: type, timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if isinstance(pilot.app.screen, cls):
            await pilot.pause()
            return
        await pilot.pause(0.05)
    raise AssertionError(f"{cls.__name__} did not appear; screen is {pilot.app.screen}")


async def click_start(pilot: Pilot[Any]) -> None:
    """Click the start screen's Start button, scrolled into view first (at 80×24 it sits
    below the description, and a click outside the visible region lands elsewhere)."""
    pilot.app.screen.query_one("#start").scroll_visible(animate=False)
    await pilot.pause()
    await pilot.click("#start")


async def start(pilot: Pilot[Any]) -> QuestionScreen:
    await wait_for(pilot, StartScreen)
    await click_start(pilot)
    await wait_for(pilot, QuestionScreen)
    screen = pilot.app.screen
    assert isinstance(screen, QuestionScreen)
    return screen


async def pause_after(tmp_path: Path, keys: str) -> None:
    """Start a session as dr-lee, answer ``keys``, and save and quit."""
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.press(*keys)
        await pilot.press("q")


def session_file(tmp_path: Path) -> Path:
    files = list((tmp_path / "sessions" / "dr-lee").glob("*.jsonl"))
    assert len(files) == 1
    return files[0]


async def test_full_session_by_keys_reaches_review_and_replays(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot)
        keys = ["a", "b", "left", "right"] * 3
        for key in keys:
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        weights = screen.recorder.engine.result().weights
        await pilot.press("c")
        await pilot.pause()
    log = read_session(session_file(tmp_path))
    assert log.finished
    assert [e.choice for e in log.events if e.type == "answer"] == [
        "left",
        "right",
        "left",
        "right",
    ] * 3
    assert replay(log).result().weights == weights


async def test_undo_shows_the_same_question_again(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot)
        first = screen.recorder.engine.next_query()
        await pilot.press("a")
        assert screen.recorder.engine.answered == 1
        await pilot.press("u")
        await pilot.pause()
        assert screen.recorder.engine.answered == 0
        assert screen.recorder.engine.next_query() == first
    kinds = [e.type for e in read_session(session_file(tmp_path)).events]
    assert kinds == ["answer", "undo"]


UNDONE = "Your last answer was taken back; here is that question again."


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_what_an_undo_said_goes_with_the_next_answer(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """An undo's "here is that question again" was a toast at the bottom right, over the
    help box when "?" was pressed. It is a line of the screen above the question, covering
    nothing, in view until the next answer takes it away."""
    app = app_for(tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = await start(pilot)
        note = screen.query_one("#question-note", Static)
        assert not note.display
        await pilot.press("a", "u")
        await pilot.pause()
        assert static_text(note) == UNDONE and note.display and in_view(note)
        others = ("#progress-row", "#prompt", "#cards", "#answer-hint", "#cant-tell")
        assert not any(note.region.overlaps(screen.query_one(o).region) for o in others)
        assert not app._notifications  # no toast, over the help or anything else
        await pilot.press("question_mark")
        await wait_for(pilot, HelpScreen)
        assert not app._notifications
        await pilot.press("escape")
        await wait_for(pilot, QuestionScreen)
        assert static_text(note) == UNDONE and in_view(note)  # still there after the help
        await pilot.press("b")
        await pilot.pause()
        assert not note.display and static_text(note) == ""


async def test_an_undo_at_the_review_says_so_above_the_question(tmp_path: Path) -> None:
    """Undo at the review went back to the question without a word; it says, as an undo
    on the question does, that this is the question again ("10 more" says nothing)."""
    app = app_for(tmp_path, budget=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        await pilot.press("a", "b", "a")
        await wait_for(pilot, ReviewScreen)
        await pilot.press("u")
        await wait_for(pilot, QuestionScreen)
        note = screen.query_one("#question-note", Static)
        assert static_text(note) == UNDONE and in_view(note)
        await pilot.press("a")
        await wait_for(pilot, ReviewScreen)
        await pilot.press("m")
        await wait_for(pilot, QuestionScreen)
        assert not note.display


@pytest.mark.parametrize("key", ["equals_sign", "space"])
async def test_cant_tell(tmp_path: Path, key: str) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.press(key)
        await pilot.pause()
    answers = [e for e in read_session(session_file(tmp_path)).events if e.type == "answer"]
    assert answers[0].choice == "indifferent"


async def test_help_opens_and_closes(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, HelpScreen)
        await pilot.press("escape")
        await wait_for(pilot, QuestionScreen)


async def test_the_progress_says_of_how_many_this_question_is(tmp_path: Path) -> None:
    """It said "question 1 · about 4 to go" on the first of 4 and "about 1 to go" on the
    last, read as one more after it: now "question 4 of about 4", as the page counts it
    (this one included)."""
    from textual.widgets import Label

    app = app_for(tmp_path, budget=4)
    labels = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot)
        while isinstance(pilot.app.screen, QuestionScreen):
            labels.append(str(screen.query_one("#progress-label", Label).render()))
            await pilot.press("a")
            await pilot.pause()
    assert labels == [f"question {n} of about 4" for n in range(1, 5)], labels


def static_text(widget: Static) -> str:
    """What a :class:`Static` says, in words: its text, or its rich content (a question's
    card is a grid, :func:`~tradeoff.tui.screens.question.render_card`) printed wide."""
    from rich.console import Console
    from textual.visual import RichVisual

    shown = widget.render()
    if not isinstance(shown, RichVisual):
        return str(shown)
    console = Console(width=200)
    with console.capture() as text:
        console.print(widget.content)
    return text.get()


def screen_words(app: Any) -> str:
    """Everything the screen's :class:`Static` widgets say (its tables apart)."""
    return "\n".join(static_text(w) for w in app.screen.query(Static))


def card_rows(screen: QuestionScreen, card: str) -> list[str]:
    """The rows of an option card as the screen draws them, inside its border."""
    from textual.geometry import Region

    widget = screen.query_one(card)
    size = widget.outer_size
    strips = widget.render_lines(Region(0, 0, size.width, size.height))
    return [strip.text[1:-1].rstrip() for strip in strips[1:-1]]


async def test_a_card_says_better_or_worse_in_words_and_wraps_under_its_line(
    tmp_path: Path,
) -> None:
    """Whether a line is better or worse than the other option's was said by colour alone
    (the page says it in words: a colour-blind reader or a terminal without colours saw
    only "136 fewer"); and at 80 columns a long line went on under the marker ("▸ flags
    832 of 1,000 malignant" then "lumps" at the card's edge), not under its own start."""
    app = pool_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(pilot)
        rows = card_rows(screen, "#card-a") + card_rows(screen, "#card-b")
    said = "\n".join(rows)
    assert "worse: " in said and "better: " in said, said
    for row in rows:
        text = row[1:]  # inside the card's padding
        assert text.startswith(("Option", "▸ ", "  ")) or not text.strip(), rows
    assert any(row.strip() == "lumps" for row in rows), rows  # a line that went on


async def test_mouse_clicks_on_the_cards_answer(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await pilot.click("#card-b")
        await pilot.click("#card-a")
        await pilot.click("#cant-tell")
        await pilot.pause()
    choices = [e.choice for e in read_session(session_file(tmp_path)).events if e.type == "answer"]
    assert choices == ["right", "left", "indifferent"]


async def test_quit_and_resume_continue_at_the_same_question(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot)
        for key in "abab":
            await pilot.press(key)
        pending = screen.recorder.engine.next_query()
        await pilot.press("q")
        await pilot.pause()
    path = session_file(tmp_path)
    again = app_for(tmp_path, resume=path)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, QuestionScreen)
        screen = pilot.app.screen
        assert isinstance(screen, QuestionScreen)
        assert screen.recorder.engine.answered == 4
        assert screen.recorder.engine.next_query() == pending
        await pilot.press("a")
    assert sum(e.type == "answer" for e in read_session(path).events) == 5


async def test_start_screen_offers_resume(tmp_path: Path) -> None:
    await pause_after(tmp_path, "a")
    again = app_for(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StartScreen)
        assert not pilot.app.screen.query_one("#resume").disabled
        await pilot.click("#resume")
        await wait_for(pilot, QuestionScreen)
        screen = pilot.app.screen
        assert isinstance(screen, QuestionScreen) and screen.recorder.engine.answered == 1


async def test_bad_participant_id_is_explained(tmp_path: Path) -> None:
    app = app_for(tmp_path, participant=None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StartScreen)
        pilot.app.screen.query_one("#participant", Input).value = "../evil"
        await click_start(pilot)
        await pilot.pause()
        assert isinstance(pilot.app.screen, StartScreen)
        error = str(pilot.app.screen.query_one("#start-error").render())
        assert "not allowed" in error
    assert not (tmp_path / "sessions").exists()


async def test_review_answer_more_questions(tmp_path: Path) -> None:
    app = app_for(tmp_path, budget=4)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot)
        for key in "abab":
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        await pilot.press("m")
        await wait_for(pilot, QuestionScreen)
        await pilot.press("a")
        assert screen.recorder.engine.answered == 5
    log = read_session(session_file(tmp_path))
    assert replay(log).answered == 5


# -- snapshots (pytest-textual-snapshot), 100×32 -------------------------------------------


def no_blink(pilot: Pilot[Any]) -> None:
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False


def snapshot_app(tmp_path: Path) -> Any:
    return app_for(tmp_path, scenarios_dir=tmp_path)


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((140, 45), id="140x45")]


def pool_scenario_file(tmp_path: Path, budget: int = 6) -> Path:
    """The default scenario with its real pool (a smaller population, for speed)."""
    from ..conftest import SCENARIOS

    scenario = tmp_path / "breast-cancer-triage.toml"
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
    scenario.write_text(
        text.replace("seed = 569", "seed = 569\nsamples = 20000")
        .replace("budget = 30", f"budget = {budget}")
        .replace(
            'path = "pools/breast-cancer.csv"',
            f'path = "{SCENARIOS / "pools" / "breast-cancer.csv"}"',
        )
    )
    return scenario


def pool_app(tmp_path: Path, **kwargs: Any) -> Any:
    kwargs.setdefault("participant", "dr-lee")
    return make_app(
        pool_scenario_file(tmp_path, kwargs.pop("budget", 6)),
        sessions_dir=tmp_path / "sessions",
        scenarios_dir=tmp_path,
        **kwargs,
    )


async def confirmed(pilot: Pilot[Any]) -> Any:
    """The result screen once "what we learned" is confirmed and the ranking (computed in a
    thread) is shown."""
    from tradeoff.tui.screens.result import ResultScreen

    await pilot.press("c")
    await wait_for(pilot, ResultScreen)
    result = pilot.app.screen
    assert isinstance(result, ResultScreen)
    for _ in range(400):
        if result.decision is not None or result.failure is not None:
            break
        await pilot.pause(0.05)
    assert result.decision is not None, result.failure
    await pilot.pause()
    return result


async def answered_and_confirmed(pilot: Pilot[Any], keys: str) -> Any:
    """Start, answer with ``keys``, and confirm "what we learned": the result screen once
    its ranking is shown (:func:`confirmed`)."""
    await start(pilot)
    for key in keys:
        await pilot.press(key)
    await wait_for(pilot, ReviewScreen)
    return await confirmed(pilot)


async def to_result(pilot: Pilot[Any]) -> None:
    from textual.widgets import DataTable

    from tradeoff.tui.screens.result import ResultScreen

    await start(pilot)
    for key in "abbaab":
        await pilot.press(key)
    await wait_for(pilot, ReviewScreen)
    await pilot.press("c")
    await wait_for(pilot, ResultScreen)
    for _ in range(200):
        if pilot.app.screen.query_one("#result-table", DataTable).row_count:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def _show_start(pilot: Pilot[Any]) -> None:
    await wait_for(pilot, StartScreen)
    no_blink(pilot)


async def _show_question(pilot: Pilot[Any]) -> None:
    await start(pilot)
    await pilot.press("a")
    await pilot.pause(0.2)


async def _show_help(pilot: Pilot[Any]) -> None:
    await start(pilot)
    await pilot.press("question_mark")
    await wait_for(pilot, HelpScreen)
    await pilot.pause(0.2)


async def _show_review(pilot: Pilot[Any]) -> None:
    await start(pilot)
    for key in "abbaab":
        await pilot.press(key)
    await wait_for(pilot, ReviewScreen)
    await pilot.pause(0.2)


async def _show_selection(pilot: Pilot[Any]) -> None:
    from tradeoff.tui.select import SelectionScreen

    await to_result(pilot)
    await pilot.press("e")
    await wait_for(pilot, SelectionScreen)
    await pilot.pause(0.3)


async def _show_result_help(pilot: Pilot[Any]) -> None:
    from tradeoff.tui.dialogs import ResultHelpScreen

    await to_result(pilot)
    await pilot.press("question_mark")
    await wait_for(pilot, ResultHelpScreen)
    await pilot.pause(0.2)


async def _show_result_scrolled(pilot: Pilot[Any]) -> None:
    await to_result(pilot)
    for _ in range(40):  # to the last candidate
        await pilot.press("down")
    await pilot.pause(0.3)


async def _show_selection_details(pilot: Pilot[Any]) -> None:
    await _show_selection(pilot)
    await pilot.press("d")
    await pilot.pause(0.3)


async def _show_selection_curves(pilot: Pilot[Any]) -> None:
    from tradeoff.tui.curves import DecisionCurvesScreen

    await _show_selection(pilot)
    await pilot.press("c")
    await wait_for(pilot, DecisionCurvesScreen)
    await pilot.pause(0.3)


async def _show_selection_help(pilot: Pilot[Any]) -> None:
    from tradeoff.tui.dialogs import SelectionHelpScreen

    await _show_selection(pilot)
    await pilot.press("question_mark")
    await wait_for(pilot, SelectionHelpScreen)
    await pilot.pause(0.2)


#: Every screen a person or a practitioner sees; the result screen leads with the
#: recommendation and its chance of being best and scrolls to every candidate; ranking
#: details says who each model is for in words, COPA one level down; each has its own help.
SCREENS: dict[str, Callable[[Pilot[Any]], Awaitable[None]]] = {
    "start": _show_start,
    "question": _show_question,
    "help": _show_help,
    "review": _show_review,
    "result": to_result,
    "result-scrolled": _show_result_scrolled,
    "result-help": _show_result_help,
    "selection": _show_selection,
    "selection-details": _show_selection_details,
    "selection-help": _show_selection_help,
    "selection-curves": _show_selection_curves,
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_snapshot(tmp_path: Path, screen: str, size: tuple[int, int], snap_compare: Any) -> None:
    assert snap_compare(pool_app(tmp_path), terminal_size=size, run_before=SCREENS[screen])


async def test_result_screen_ranks_the_pool_and_opens_the_selection(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    from tradeoff.tui.screens.result import ResultScreen
    from tradeoff.tui.select import SelectionScreen

    from ..conftest import SCENARIOS

    scenario = tmp_path / "breast-cancer-triage.toml"
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
    scenario.write_text(
        text.replace("seed = 569", "seed = 569\nsamples = 20000")
        .replace("budget = 30", "budget = 6")
        .replace(
            'path = "pools/breast-cancer.csv"',
            f'path = "{SCENARIOS / "pools" / "breast-cancer.csv"}"',
        )
    )
    app = make_app(scenario, sessions_dir=tmp_path / "sessions", participant="dr-lee")
    async with app.run_test(size=(120, 40)) as pilot:
        await start(pilot)
        for key in "ababab":
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        await pilot.press("c")
        await wait_for(pilot, ResultScreen)
        for _ in range(100):
            if pilot.app.screen.query_one("#result-table", DataTable).row_count:
                break
            await pilot.pause(0.05)
        assert (
            pilot.app.screen.query_one("#result-table", DataTable).row_count == 34
        )  # every candidate, best for the person first
        await pilot.press("e")
        await wait_for(pilot, SelectionScreen)
        await pilot.press("q")
        await wait_for(pilot, ResultScreen)


# -- start, review, result: what a person reads -----------------------------------------


async def test_starting_with_an_unfinished_id_offers_to_continue_it(tmp_path: Path) -> None:
    """Typing an id that has an unfinished session and pressing Enter asks whether to
    continue it; "Continue" is the focused default, and Enter continues."""
    from textual.widgets import Button

    from tradeoff.tui.dialogs import ConfirmScreen

    await pause_after(tmp_path, "ab")
    again = app_for(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StartScreen)
        pilot.app.screen.query_one("#participant", Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, ConfirmScreen)
        focused = pilot.app.focused
        assert isinstance(focused, Button) and focused.id == "yes"
        assert "Continue" in str(focused.label)
        await pilot.press("enter")
        await wait_for(pilot, QuestionScreen)
        screen = pilot.app.screen
        assert isinstance(screen, QuestionScreen) and screen.recorder.engine.answered == 2
    assert len(list((tmp_path / "sessions" / "dr-lee").glob("*.jsonl"))) == 1


async def test_starting_again_from_scratch_keeps_the_unfinished_session(tmp_path: Path) -> None:
    from tradeoff.tui.dialogs import ConfirmScreen

    await pause_after(tmp_path, "a")
    again = app_for(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StartScreen)
        await click_start(pilot)
        await wait_for(pilot, ConfirmScreen)
        await pilot.click("#no")
        await wait_for(pilot, QuestionScreen)
        screen = pilot.app.screen
        assert isinstance(screen, QuestionScreen) and screen.recorder.engine.answered == 0
    assert len(list((tmp_path / "sessions" / "dr-lee").glob("*.jsonl"))) == 2


async def test_start_text_flows_as_paragraphs(tmp_path: Path) -> None:
    app = pool_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StartScreen)
        text = str(pilot.app.screen.query_one("#description").render())
        # The file wraps its description at 90 columns; the screen reflows it.
        assert "(refer for biopsy at\nonce)" not in text
        expect = str(pilot.app.screen.query_one("#expect").render())
        assert "At most 6 questions" in expect


async def test_review_has_help_a_default_button_and_quit_prints_the_file(tmp_path: Path) -> None:
    from textual.widgets import Button

    from tradeoff.tui.dialogs import ReviewHelpScreen

    app = app_for(tmp_path, budget=4)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        for key in "abab":
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        focused = pilot.app.focused
        assert isinstance(focused, Button) and focused.id == "confirm-button"
        await pilot.press("question_mark")
        await wait_for(pilot, ReviewHelpScreen)
        await pilot.press("escape")
        await wait_for(pilot, ReviewScreen)
        await pilot.press("q")
        await pilot.pause()
    path = session_file(tmp_path)
    text, line = app.farewell
    assert "Resume with" in text and str(path) in line


async def test_review_flags_a_person_who_always_picks_the_same_side(tmp_path: Path) -> None:
    app = app_for(tmp_path, budget=10)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        for _ in range(10):
            await pilot.press("a")
        await wait_for(pilot, ReviewScreen)
        text = str(pilot.app.screen.query_one("#consistency").render())
        assert "Option A was chosen 10 of 10 times" in text
        assert "may not reflect a preference" in text


async def test_result_screen_speaks_the_persons_language(tmp_path: Path) -> None:
    """Labels and counts per 1,000; no column names, ω, p, COPA or top-%."""
    from textual.widgets import DataTable

    app = pool_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_result(pilot)
        screen = pilot.app.screen
        words = " ".join(
            str(screen.query_one(f"#{w}").render()) for w in ("result-recommend", "result-status")
        )
        table = screen.query_one("#result-table", DataTable)
        headers = " ".join(str(c.label) for c in table.columns.values())
        cells = [str(c) for c in table.get_row_at(0)]
    assert words.startswith("Recommended for you: ")
    # The chance it is best, or (practically tied) the models it is tied with and why.
    assert "chance that it really is the best for you" in words or (
        "practically tied with" in words and "is picked because" in words
    )
    for jargon in ("COPA", "ω", "p =", "top-", "recall_", "size_kb", "latency_ms", "Pareto"):
        assert jargon not in words + headers, jargon
    assert "malignant" in headers and "flagged" in headers
    assert cells[1].isdigit() and 800 <= int(cells[1]) <= 1000  # flagged per 1,000


async def test_review_offers_no_more_questions_when_none_is_left(tmp_path: Path) -> None:
    """A person who can't tell any trade apart reaches the review before the budget: it
    says why, and neither the button nor the "m" key asks for 10 more (before, each press
    wrote an extension and showed the same review again)."""
    app = app_for(tmp_path, budget=40)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot)
        while not isinstance(pilot.app.screen, ReviewScreen):
            await pilot.press("equals_sign")
            await pilot.pause()
        assert screen.recorder.engine.answered < 40
        review = pilot.app.screen
        assert "could not tell" in str(review.query_one("#why-stopped").render())
        assert not review.query("#more-button")
        await pilot.press("m")
        await pilot.pause()
        assert pilot.app.screen is review
    log = read_session(session_file(tmp_path))
    assert not any(e.type == "extend" for e in log.events)


# -- the start screen at 80×24: the field in view, plain words -----------------------------


def in_view(widget: Any) -> bool:
    """Whether all of ``widget`` is on the screen: above the footer and inside every
    scrolling container it sits in (a scrolled-out widget has a region out there)."""
    from textual.containers import ScrollableContainer
    from textual.widgets import Footer

    region = widget.region
    bottom = widget.screen.query_one(Footer).region.y
    inside = all(
        a.region.contains_region(region)
        for a in widget.ancestors
        if isinstance(a, ScrollableContainer)
    )
    return bool(region.height) and region.y >= 0 and region.bottom <= bottom and inside


async def test_the_start_screens_field_and_buttons_are_in_view_at_80x24(tmp_path: Path) -> None:
    """At 80×24 the participant id had the focus but sat below the description, out of
    sight; Tab went to Start, and Enter said "participant id: '': is not allowed". The
    field and the buttons now stay in view under the text, which page down scrolls, and
    an empty id gets told what to type."""
    from textual.widgets import Button

    app = pool_app(tmp_path, participant=None)  # the real, long description
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StartScreen)
        screen = pilot.app.screen
        field = screen.query_one("#participant", Input)
        assert pilot.app.focused is field
        assert in_view(field) and in_view(screen.query_one("#start"))
        assert in_view(screen.query_one("#title"))
        body = screen.query_one("#start-body")
        assert body.max_scroll_y > 0  # the text does not fit: it scrolls, the form stays
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0 and pilot.app.focused is field
        await pilot.press("tab")
        focused = pilot.app.focused
        assert isinstance(focused, Button) and focused.id == "start"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(pilot.app.screen, StartScreen)
        error = screen.query_one("#start-error")
        said = str(error.render())
        assert said.startswith("Type your participant id first")
        assert "is not allowed" not in said and "''" not in said
        assert in_view(error) and in_view(screen.query_one("#start"))
        assert pilot.app.focused is field  # back in the field, to type it
        await pilot.press(*"dr-lee")
        assert field.value == "dr-lee"
    assert not (tmp_path / "sessions").exists()


async def test_the_start_screens_form_follows_the_text_when_it_fits(tmp_path: Path) -> None:
    """At 140×45 the whole text shows, and the field comes right after it (not at the
    foot of the screen, below a gap)."""
    app = pool_app(tmp_path, participant=None)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for(pilot, StartScreen)
        screen = pilot.app.screen
        body, form = screen.query_one("#start-body"), screen.query_one("#start-form")
        assert body.max_scroll_y == 0
        assert form.region.y - body.region.bottom <= 1
        assert in_view(screen.query_one("#participant")) and in_view(screen.query_one("#start"))


async def test_the_study_start_screen_keeps_the_code_in_view(tmp_path: Path) -> None:
    """The study's start screen has the same form: the code field in view at 80×24, and
    Start with nothing typed asks for the code (it did nothing)."""
    from tradeoff.study.folder import create_study
    from tradeoff.tui.screens.start import StudyStartScreen

    scenario = scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    app = make_app(scenario, study=study)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, StudyStartScreen)
        screen = pilot.app.screen
        field = screen.query_one("#code", Input)
        assert pilot.app.focused is field and in_view(field)
        await pilot.press("enter")
        await pilot.pause()
        said = str(screen.query_one("#start-error").render())
        assert said.startswith("Type your access code first")
        assert in_view(screen.query_one("#start-error")) and in_view(screen.query_one("#start"))


# -- ranking details: a plot with room, round ticks and markers of its own ----------------


@pytest.fixture(scope="module")
def example_selection() -> Any:
    """The selection from the shipped example sessions (two people, the real pool)."""
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.decide import load_stakeholders
    from tradeoff.choose.selection import select_for_stakeholders

    from ..conftest import ROOT, SCENARIOS

    paths = sorted((ROOT / "sessions" / "examples").glob("*/*.jsonl"))
    sc, stakeholders = load_stakeholders(paths)
    return select_for_stakeholders(sc, stakeholders, scenario_pool(sc, SCENARIOS))


def plot_lines(screen: Any) -> list[str]:
    return screen.query_one("#scatter").render().plain.splitlines()


def tick_labels_of(lines: list[str]) -> tuple[list[str], list[str]]:
    """The y labels from top to bottom and the x labels from left to right."""
    ys = [line.split("┤")[0].strip() for line in lines if "┤" in line]
    bottom = next(i for i, line in enumerate(lines) if "└" in line)
    return ys, lines[bottom + 1].split()


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_the_plot_has_rows_and_round_ticks_that_increase_upwards(
    example_selection: Any, size: tuple[int, int]
) -> None:
    """At 80×24 the plot had one row (none in COPA's view) and its y labels read 958.0
    above 1000.0; the x labels read 811.8. It keeps at least 10 rows, and its ticks are
    round counts per 1,000, as the table shows them, increasing upwards and rightwards,
    around every model."""
    import re

    from tradeoff.tui.select import SelectionScreen
    from tradeoff.tui.select_app import SelectionApp

    app = SelectionApp(example_selection)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        screen = pilot.app.screen
        assert isinstance(screen, SelectionScreen)
        pool = example_selection.pool
        for view in ("people", "copa"):
            if view == "copa":
                await pilot.press("d")
                await pilot.pause(0.3)
            scatter = screen.query_one("#scatter")
            assert scatter.size.height >= 10, view
            assert in_view(scatter) and in_view(screen.query_one("#select-axes")), view
            ys, xs = tick_labels_of(plot_lines(screen))
            for labels, values in ((ys[::-1], pool.values[:, 1]), (xs, pool.values[:, 0])):
                assert len(labels) >= 2 and all(
                    re.fullmatch(r"\d{1,3}(,\d{3})*", s) for s in labels
                ), labels
                numbers = [int(s.replace(",", "")) for s in labels]
                assert numbers == sorted(set(numbers)), labels  # increasing, no repeats
                assert numbers[0] <= 1000 * values.min() and 1000 * values.max() <= numbers[-1]


async def test_the_front_and_the_pick_have_markers_of_their_own(example_selection: Any) -> None:
    """At 140×45 the Pareto front's line was drawn with the models' "•": models, the front
    and the pick now each have a marker, named under the plot."""
    import re

    from tradeoff.pareto import pareto_mask
    from tradeoff.tui.select_app import SelectionApp

    pool = example_selection.pool
    on_front = pareto_mask(pool.minimisation()[:, [0, 1]])
    app = SelectionApp(example_selection)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause(0.3)
        screen = pilot.app.screen
        inside = (re.search(r"[┤│](.*)│", line) for line in plot_lines(screen))
        canvas = "".join(m.group(1) for m in inside if m)
        assert "◆" in canvas and "X" in canvas and "•" in canvas
        assert any("\u2800" <= c <= "\u28ff" for c in canvas)  # the front's fine line
        assert canvas.count("•") <= int((~on_front).sum())  # only models off the front
        caption = str(screen.query_one("#select-axes").render())
        assert "• model" in caption and "◆ Pareto front" in caption and "X pick" in caption
        assert "↑ benign cleared per 1,000" in caption


async def test_a_terminal_too_short_for_the_plot_says_so(example_selection: Any) -> None:
    from tradeoff.tui.select_app import SelectionApp

    app = SelectionApp(example_selection)
    async with app.run_test(size=(80, 16)) as pilot:
        await pilot.pause(0.3)
        screen = pilot.app.screen
        assert not screen.query_one("#scatter").display
        caption = screen.query_one("#select-axes")
        assert "needs a terminal" in str(caption.render()) and in_view(caption)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.3)
        assert screen.query_one("#scatter").display
        assert "↑ benign cleared" in str(caption.render())


async def test_without_a_scenario_the_columns_keep_their_whole_names(
    example_selection: Any,
) -> None:
    """Without a scenario's words the table's headers are the pool's column names, whole:
    cut to 14 characters, recall_malignant read "recall_maligna" (and names alike at the
    start could not be told apart)."""
    import dataclasses

    from textual.widgets import DataTable

    from tradeoff.tui.select_app import SelectionApp

    app = SelectionApp(dataclasses.replace(example_selection, scenario=None))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause(0.3)
        table = pilot.app.screen.query_one("#select-table", DataTable)
        headers = [str(c.label) for c in table.columns.values()]
        assert headers[2:-1] == list(example_selection.pool.columns)


async def test_omega_set_by_alpha_is_not_called_the_fitted_one(example_selection: Any) -> None:
    """ω fitted to the people's metric is explained as such; once α sets ω (o, +), the
    sentence about the fitted ω goes, and it comes back with the people's ω (w)."""
    from tradeoff.tui.select_app import SelectionApp

    fitted = "orders the pool most like the person's own metric"
    app = SelectionApp(example_selection)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause(0.3)
        screen = pilot.app.screen
        said = []
        for key in ("d", "o", "plus", "w"):
            await pilot.press(key)
            await pilot.pause(0.2)
            said.append(str(screen.query_one("#select-status").render()))
        assert fitted in said[0] and "fitted to each person's metric" in said[0]
        assert all(fitted not in s and "α = " in s for s in said[1:3]), said[1:3]
        assert fitted in said[3], said[3]
