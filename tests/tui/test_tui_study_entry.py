"""Who a study's code lets in at a terminal (``tradeoff elicit --study``), as on the study's
page: someone withdrawn, erased or finished opens no session; an unfinished one is taken up
where it stopped (a participant takes part once, no second session offered); saving to go
on later names the command that goes on; a study that asks consent is refused (only its
page shows and records it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.study.folder import Study, create_study
from tradeoff.study.withdrawals import withdraw
from tradeoff.tui import make_app
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


async def test_an_unfinished_session_goes_on_and_saving_names_the_command(
    tmp_path: Path,
) -> None:
    scenario = small_scenario_file(tmp_path)
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    first = await enter(study, scenario, codes["p01"], 2, "q")
    farewell = getattr(first, "farewell", None)
    assert farewell is not None and "enter your access code" in farewell[0]
    assert farewell[1].endswith(f" elicit --study {study.path}")
    await enter(study, scenario, codes["p01"], 1, "q")  # no choice offered: on where it was
    [path] = sorted((study.sessions_dir / "p01").glob("*.jsonl"))
    assert sum(e.type == "answer" for e in read_session(path).events) == 3


def test_a_study_that_asks_consent_is_served_not_run_at_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    consent = tmp_path / "information.md"
    consent.write_text("# About the study\n\nYou may stop at any time.\n")
    study, _ = create_study(scenario, ["p01"], tmp_path / "study", consent=consent)
    assert main(["elicit", "--study", str(study.path)]) == 2
    err = capsys.readouterr().err
    assert "consent" in err and "tradeoff study serve" in err
    assert not (study.sessions_dir / "p01").exists() or not list(
        (study.sessions_dir / "p01").glob("*.jsonl")
    )


async def test_a_new_session_starts_from_the_studys_population_prior(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on the study's page (:meth:`tradeoff.web.held.Participants.start`): the prior
    the study has pooled so far is what the new session's weights start from."""
    import tradeoff.tui.app as app_module

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
