"""Studies: access codes that open one participant's own session, the coordinator's status
and report, and a server that refuses what it should."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.attempts import failure_delay
from tradeoff.study.codes import CODE_BITS, CODE_LENGTH, normalise_code
from tradeoff.study.folder import create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.study.status import study_status
from tradeoff.tui import make_app
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import StudyStartScreen

from ..conftest import ROOT, small_scenario_file
from ..tui.test_tui import click_start, wait_for

pytestmark = pytest.mark.e2e

SIZE = (100, 32)


def test_codes_have_80_bits_and_are_stored_only_as_salted_hashes(tmp_path: Path) -> None:
    study, codes = create_study(small_scenario_file(tmp_path), ["p01", "p02"], tmp_path / "s")
    assert CODE_LENGTH * 5 >= CODE_BITS == 80
    assert all(len(normalise_code(c)) == CODE_LENGTH for c in codes.values())
    text = (tmp_path / "s" / "study.json").read_text()
    for code in codes.values():
        assert code not in text and normalise_code(code) not in text
    again = load_study(tmp_path / "s")
    assert again.participant_for(codes["p02"]) == "p02"
    assert again.participant_for(codes["p01"].lower().replace("-", " ")) == "p01"
    assert again.participant_for("p01") is None and again.participant_for("") is None
    # a second study of the same scenario: different salt, so the hashes differ too
    other, _ = create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "t")
    assert other.participants["p01"] != study.participants["p01"]


def test_a_study_never_overwrites_and_refuses_a_changed_scenario(tmp_path: Path) -> None:
    from tradeoff.errors import InputError

    create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "s")
    with pytest.raises(InputError, match="never overwritten"):
        create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "s")
    copy = tmp_path / "s" / "scenario.toml"
    copy.write_text(copy.read_text() + "\n# edited\n")
    with pytest.raises(InputError, match="has changed"):
        load_study(tmp_path / "s")


def test_wrong_codes_wait_longer_each_time() -> None:
    assert [failure_delay(n) for n in range(5)] == [0.0, 1.0, 2.0, 4.0, 8.0]
    assert failure_delay(100) == 60.0


async def _enter(pilot: Any, code: str) -> None:
    field = pilot.app.screen.query_one("#code", Input)
    field.value = code
    await click_start(pilot)
    for _ in range(200):
        await pilot.pause(0.05)
        if (
            not pilot.app.screen.query("#start")
            or not pilot.app.screen.query_one("#start").disabled
        ):
            break


async def test_a_code_opens_its_own_session_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the study's start screen: no scenario picker and no participant id; another
    participant's id, a made-up code or an empty field opens nothing (with a plain message,
    and each wrong code is counted for the delay); p01's code opens p01's session, and
    the answers land in p01's folder only."""
    slept: list[float] = []
    monkeypatch.setattr("tradeoff.tui.screens.start.time.sleep", slept.append)
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 6"})
    study, codes = create_study(scenario, ["p01", "p02"], tmp_path / "study")
    app = make_app(scenario, study=study)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, StudyStartScreen)
        screen = pilot.app.screen
        assert not screen.query("#scenario") and not screen.query("#participant")
        for wrong in ("p02", "AAAA-AAAA-AAAA-AAAA", codes["p02"][:-1]):
            await _enter(pilot, wrong)
            assert isinstance(pilot.app.screen, StudyStartScreen)
            message = str(screen.query_one("#start-error", Static).render())
            assert "does not open a session" in message
        assert slept == [0.0, 1.0, 2.0]  # the delay grows with every wrong code
        await _enter(pilot, codes["p01"])
        await wait_for(pilot, QuestionScreen)
        assert slept == [0.0, 1.0, 2.0]  # a right code is never delayed
        await pilot.press("a", "b")
        await pilot.pause()
        await pilot.press("q")
    logged = (study.path / "attempts.log").read_text().splitlines()
    assert len(logged) == 3 and all(line.endswith(" unknown") for line in logged)
    assert len(list((study.sessions_dir / "p01").glob("*.jsonl"))) == 1
    assert not (study.sessions_dir / "p02").exists()
    assert app.farewell is not None and "access code" in app.farewell[0]
    assert app.farewell[1] == ""  # no file path or command shown to a participant


def _answer_all(
    study_dir: Path, participant: str, truth: tuple[float, ...], seconds: float = 2.0
) -> None:
    study = load_study(study_dir)
    loaded = load_scenario(study.scenario_path)
    sc = loaded.scenario
    rec = start_session(
        loaded, participant, study.sessions_dir, spec=sc.elicitation.override(budget=6)
    )
    oracle = SimulatedOracle.for_scenario(sc, truth)
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q), response_ms=seconds * 1000)
        rec.finish()


def test_status_and_report_after_simulated_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("# the hospital's panel\ndr-lee\ndr-okafor\n\ndr-silva\n")
    codes = tmp_path / "codes.csv"
    scenario = ROOT / "scenarios" / "breast-cancer-triage.toml"
    argv = ["study", "create", str(scenario), "--participants", str(ids)]
    argv += ["--out", str(tmp_path / "s"), "--codes", str(codes)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "codes written to" in out
    assert "tables are prepared in" in out  # every participant's app maps them
    assert len(list((tmp_path / "s" / "cache").glob("population-*/pair-0-1-rho.npy"))) == 1
    lines = codes.read_text().splitlines()
    assert lines[0] == "participant,access_code" and len(lines) == 4
    assert lines[1].split(",")[1] not in out  # the codes went to the file, not the screen
    assert main(argv) == 2  # the codes file and the study are never overwritten
    capsys.readouterr()
    _answer_all(tmp_path / "s", "dr-lee", (0.5, 0.3, 0.1, 0.1))
    _answer_all(tmp_path / "s", "dr-silva", (0.4, 0.4, 0.1, 0.1), seconds=5.0)
    assert main(["study", "status", str(tmp_path / "s"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["participants"], data["started"], data["complete"]) == (3, 2, 2)
    rows = {r["participant"]: r for r in data["rows"]}
    assert rows["dr-lee"]["answers"] == 6 and rows["dr-lee"]["complete"] is True
    assert rows["dr-okafor"]["answers"] == 0 and rows["dr-okafor"]["last_activity"] is None
    assert data["median_response_s"] == 3.5  # 6 answers at 2 s and 6 at 5 s
    assert rows["dr-okafor"]["state"] == "not started" and rows["dr-lee"]["state"] == "complete"
    assert main(["study", "status", str(tmp_path / "s")]) == 0
    text = capsys.readouterr().out
    assert "3 participants, 2 started, 2 complete" in text
    assert "not started" in text
    report = tmp_path / "report"
    assert main(["study", "report", str(tmp_path / "s"), "--out", str(report), "--json"]) == 0
    captured = capsys.readouterr()
    written = json.loads(captured.out)
    assert "participant dr-okafor is not in the report: not started" in captured.err
    assert "dr-lee" not in captured.err
    md = Path(written["markdown"]).read_text()
    assert "dr-lee" in md and "dr-silva" in md
    # the one left out is named in the summary too, not only on stderr
    assert md.count("dr-okafor") == 1 and "Not in this report: dr-okafor (not started)." in md
    status = study_status(load_study(tmp_path / "s"))
    assert len(status.complete_sessions()) == 2
    assert main(["study", "withdraw", str(tmp_path / "s"), "dr-silva"]) == 0
    said = capsys.readouterr().out
    assert "dr-silva withdrawn" in said and "Kept: the withdrawal record" in said
    assert "their 1 session file (" in said
    status = study_status(load_study(tmp_path / "s"))
    assert len(status.complete_sessions()) == 1  # dr-lee only
    assert ("dr-silva", status.rows[2].state) in status.missing()
    assert status.rows[2].state.startswith("withdrawn ")
    assert status.to_dict()["withdrawn"] == 1
    assert main(["study", "withdraw", str(tmp_path / "s"), "dr-nobody"]) == 2
    report2 = tmp_path / "report2"
    assert main(["study", "report", str(tmp_path / "s"), "--out", str(report2), "--json"]) == 0
    captured = capsys.readouterr()
    assert "participant dr-silva is not in the report: withdrawn" in captured.err
    md = Path(json.loads(captured.out)["markdown"]).read_text()
    assert "dr-lee" in md and "### dr-silva" not in md
    assert re.search(r"Not in this report: dr-okafor \(not started\), dr-silva \(withdrawn ", md)


def test_elicit_study_takes_no_participant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["elicit", "--study", str(tmp_path), "--participant", "x"]) == 2
    assert "--study" in capsys.readouterr().err


async def test_the_live_view_counts_participants(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    from tradeoff.tui.study import StudyWatchApp

    study, _ = create_study(small_scenario_file(tmp_path), ["p01", "p02"], tmp_path / "s")
    _answer_all(tmp_path / "s", "p02", (0.4, 0.3, 0.2, 0.1))
    app = StudyWatchApp(study, interval=0.2)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause(0.3)
        table = app.query_one(DataTable)
        assert table.row_count == 2
        summary = str(app.query_one("#study-summary", Static).render())
        assert "2 participants, 1 started, 1 complete" in summary


def test_plain_status_keeps_each_row_to_80_columns(tmp_path: Path) -> None:
    """``study status``'s table shows the last activity and a withdrawal's time to the
    minute, as its ``--watch`` view does (the seconds are in ``--json``), so that a
    withdrawn participant's row fits 80 columns (it ran to 96); the summary says the times
    are UTC."""
    from tradeoff.cli.study_status import status_words
    from tradeoff.study.withdrawals import withdraw

    from ..participants import take_part

    study, _ = create_study(small_scenario_file(tmp_path), ["p01", "p02"], tmp_path / "s")
    take_part(study, "p01", 6, budget=20)
    take_part(study, "p02", 2)
    withdraw(study, "p02")
    data = study_status(load_study(study.path)).to_dict()
    words = status_words(data)
    assert words.summary[0].endswith("Times are UTC.")
    rows = words.table[1:]
    assert all(len(line) <= 80 for line in words.table), words.table
    assert re.search(r" \d{4}-\d\d-\d\d \d\d:\d\d +unfinished after 6 answers$", rows[0])
    assert re.search(r"withdrawn \d{4}-\d\d-\d\d \d\d:\d\d$", rows[1]), rows[1]
    assert re.fullmatch(
        r"withdrawn \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", data["rows"][1]["state"]
    )


async def test_the_live_view_shows_each_note_whole_at_80_columns(tmp_path: Path) -> None:
    """At 80x24 the note column takes the width the others leave (the last activity to the
    minute) and a longer note wraps onto another line of its row, never cut ("unfinished
    after 6 a", "withdrawn 2026-11-29", "erased on request (p" were); a withdrawal's time,
    to the minute as the last activity, stays on its row's one line (its seconds and
    "+00:00" wrapped onto a second); the summary carries plain status's totals, the
    withdrawn and the erased with them."""
    from textual.widgets import DataTable

    from tradeoff.study.erase import erase
    from tradeoff.study.status import row_note, table_note, totals_words
    from tradeoff.study.withdrawals import withdraw
    from tradeoff.tui.study import StudyWatchApp

    from ..participants import take_part

    people = ["p01", "p02", "p03", "p04"]
    study, _ = create_study(small_scenario_file(tmp_path), people, tmp_path / "s")
    take_part(study, "p01", 6, budget=20)
    take_part(study, "p02", finish=True)
    take_part(study, "p03", 2)
    withdraw(study, "p03")
    take_part(study, "p04", 1)
    erase(study.path, "p04", requested_by="p04, by e-mail")
    status = study_status(load_study(study.path))
    notes = [row_note(r.to_dict()) for r in status.rows]
    assert "unfinished after 6 answers" in notes
    assert any(n.startswith("withdrawn 20") for n in notes)
    assert any(n.startswith("erased on request (p04, by e-mail) at 20") for n in notes)
    withdrawn, erased = status.rows[2].withdrawn, status.rows[3].erased
    second = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"
    assert withdrawn and erased and re.fullmatch(second, withdrawn) and re.fullmatch(second, erased)
    watched = [table_note(r.to_dict()) for r in status.rows]  # the times to the minute
    assert watched[2] == f"withdrawn {withdrawn[:10]} {withdrawn[11:16]}"
    assert watched[3] == f"erased on request (p04, by e-mail) at {erased[:10]} {erased[11:16]}"
    app = StudyWatchApp(load_study(study.path), interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        table = app.query_one(DataTable)
        assert table.row_count == 4 and table.virtual_size.width <= 80
        heights = [row.height for row in table.ordered_rows]
        assert heights[:3] == [1, 1, 1], heights  # a withdrawal's time on its row's line
        shown = [table.render_line(y).text for y in range(table.size.height)]
        words = " ".join(shown).split()
        for note in watched:  # each note's words in a row, as it wraps in its column
            n = len(note.split())
            assert any(words[i : i + n] == note.split() for i in range(len(words))), note
        summary = str(app.query_one("#study-summary", Static).render())
        assert totals_words(status.to_dict()) in " ".join(summary.split())
        assert "1 withdrawn, 1 erased" in " ".join(summary.split())
