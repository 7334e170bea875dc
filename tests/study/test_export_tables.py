"""The export's two tables and their codebook as an analyst reads them: one row per
participant beside the answers (state, questions answered, the pick and the probability the
questions stopped on, how they came in), pilots left out unless asked for, true/false that
pandas reads as bool, a Frictionless Data Package that the ``frictionless`` library itself
validates, and a CSV and a Parquet export of one name side by side in either order."""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.decide import decide
from tradeoff.learn import Choice
from tradeoff.record.log import read_session
from tradeoff.record.records import AnswerRecord, ConsentRecord, EntryRecord
from tradeoff.record.summary import summarise
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.export import export_study
from tradeoff.study.export_rows import session_rows
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.study.report import study_sessions
from tradeoff.study.table_columns import aspect_slugs
from tradeoff.study.table_files import export_files
from tradeoff.study.withdrawals import withdraw

from ..conftest import ROOT
from ..participants import take_part

pytestmark = pytest.mark.e2e

frictionless = pytest.importorskip("frictionless", reason="frictionless (the test extra)")

PANEL = EntryRecord(type="entry", via="panel", panel_id="P1", params={"STUDY_ID": "s1"})
CODE = EntryRecord(type="entry", via="code")
PILOT = EntryRecord(type="entry", via="open", pilot=True)
CONSENT = ConsentRecord(type="consent", version="v7", text_sha256="ab" * 32, language="nl")


@dataclass
class Made:
    study: Study
    files: dict[str, Path] = field(default_factory=dict)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    """p01 complete (panel, consent), p02 unfinished after 3 (access code), p03 complete
    then withdrawn, p04 not started, p05 only a pilot, p06 complete without entry or
    consent (as the terminal app records)."""
    root = tmp_path_factory.mktemp("tables")
    ids = ["p01", "p02", "p03", "p04", "p05", "p06"]
    study, _ = create_study(ROOT / "scenarios" / "breast-cancer-triage.toml", ids, root / "s")
    m = Made(study)

    def session(pid: str, answers: int | None = None, **given: Any) -> None:
        m.files[pid] = take_part(study, pid, answers, response_ms=lambda n: 1200.0 + n, **given)

    session("p01", entry=PANEL, consent=CONSENT, finish=True)
    session("p02", 3, entry=CODE, seed=1)
    session("p03", entry=CODE, finish=True, seed=2)
    withdraw(study, "p03")
    session("p05", entry=PILOT, finish=True, seed=3)
    session("p06", finish=True, seed=4)
    return m


@pytest.fixture(scope="module")
def exported(made: Made, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out")
    summary = export_study(load_study(made.study.path), out / "answers.csv")
    assert summary.pilot == ("p05",) and summary.pilot_sessions == 1
    assert summary.withdrawn == ("p03",)
    assert dict(summary.states) == {
        "p01": "complete",
        "p02": "unfinished",
        "p04": "not started",
        "p06": "complete",
    }
    return out


def test_one_row_per_participant_left_in_with_their_state(made: Made, exported: Path) -> None:
    people = pd.read_csv(exported / "answers.participants.csv")
    assert list(people["participant"]) == ["p01", "p02", "p04", "p06"]
    by = people.set_index("participant")
    assert list(by["state"]) == ["complete", "unfinished", "not started", "complete"]
    assert list(by["completed"]) == [True, False, False, True]
    # the questions answered are what a replay of the file counts (tradeoff session show)
    for pid in ("p01", "p02", "p06"):
        assert by.loc[pid, "questions_answered"] == summarise(made.files[pid]).answers
        assert by.loc[pid, "session"] == made.files[pid].name
        assert by.loc[pid, "sessions"] == 1
    assert by.loc["p02", "questions_answered"] == 3
    assert by.loc["p04", "questions_answered"] == 0 and by.loc["p04", "sessions"] == 0
    assert pd.isna(by.loc["p04", "session"]) and pd.isna(by.loc["p04", "final_pick"])
    # how they came in
    assert by.loc["p01", "entry_via"] == "panel" and by.loc["p01", "panel_id"] == "P1"
    assert by.loc["p02", "entry_via"] == "code" and pd.isna(by.loc["p02", "panel_id"])
    assert pd.isna(by.loc["p06", "entry_via"])
    assert not by["pilot"].any()
    assert by.loc["p01", "consent_version"] == "v7" and by.loc["p01", "language"] == "nl"
    assert pd.isna(by.loc["p06", "consent_version"]) and pd.isna(by.loc["p06", "language"])


def test_the_pick_and_its_probability_are_the_ones_the_questions_stopped_on(
    made: Made, exported: Path
) -> None:
    """``final_pick`` is the decide step's pick (:func:`tradeoff.choose.decide.decide` over
    the session files, as ``study report`` runs it, replaying them anew); ``p_best`` is the
    probability the engine's own verdict states for that session
    (:attr:`SessionSummary.verdict`), computed there over the candidates recorded in the
    header, here over the pool."""
    people = pd.read_csv(exported / "answers.participants.csv").set_index("participant")
    names = set(pd.read_csv(ROOT / "scenarios" / "pools" / "breast-cancer.csv")["model"])
    study = load_study(made.study.path)
    pids = ("p01", "p02", "p06")
    decided = decide(
        [made.files[pid] for pid in pids],
        scenario=study.scenario_path,
        populations=study.populations(),
    )
    for pid, rec in zip(pids, decided.recommendations, strict=True):
        verdict = summarise(made.files[pid]).verdict
        assert verdict is not None
        assert people.loc[pid, "final_pick"] in names
        assert people.loc[pid, "final_pick"] == rec.name
        assert people.loc[pid, "p_best"] == pytest.approx(verdict.stated, abs=1e-6)
    # a complete session stopped because it was sure enough, or ran out of questions
    assert people["p_best"].dropna().between(0.0, 1.0).all()


def test_answers_carry_the_pilot_flag_and_whose_clock_timed_them(exported: Path) -> None:
    answers = pd.read_csv(exported / "answers.csv")
    assert set(answers["participant"]) == {"p01", "p02", "p06"}
    assert not answers["pilot"].any()
    timer = answers.groupby("participant")["response_timer"].agg(set)
    assert timer["p01"] == {"server"} and timer["p02"] == {"server"}
    assert timer["p06"] == {"app"}
    # every answer's participant has a row in the participants table
    people = pd.read_csv(exported / "answers.participants.csv")
    assert set(answers["participant"]) <= set(people["participant"])


def test_pilots_are_exported_only_when_asked_for(made: Made, tmp_path: Path) -> None:
    summary = export_study(load_study(made.study.path), tmp_path / "all.csv", include_pilot=True)
    assert summary.pilot == () and summary.pilot_sessions == 0
    people = pd.read_csv(tmp_path / "all.participants.csv").set_index("participant")
    assert list(people.index) == ["p01", "p02", "p04", "p05", "p06"]
    assert people.loc["p05", "pilot"] and people.loc["p05", "entry_via"] == "open"
    assert people["pilot"].sum() == 1
    answers = pd.read_csv(tmp_path / "all.csv")
    assert answers[answers["pilot"]]["participant"].unique().tolist() == ["p05"]
    assert summary.to_dict()["pilot"] == []


def test_pandas_reads_true_false_as_bool_and_numbers_as_numbers(exported: Path) -> None:
    answers = pd.read_csv(exported / "answers.csv")
    people = pd.read_csv(exported / "answers.participants.csv")
    for frame, flags in (
        (answers, ("undone", "is_repeat", "pilot")),
        (people, ("completed", "pilot")),
    ):
        for name in flags:
            assert pd.api.types.is_bool_dtype(frame[name]), name
    for name in ("question", "answer_seq", "response_ms", "w_memory", "p_best"):
        assert pd.api.types.is_numeric_dtype(answers[name]), name
    for name in ("questions_answered", "sessions", "p_best"):
        assert pd.api.types.is_numeric_dtype(people[name]), name
    raw = (exported / "answers.participants.csv").read_text(encoding="utf-8")
    assert "TRUE" in raw and "FALSE" in raw and "True" not in raw and "False" not in raw
    # ~ on a bool column is "not": on text it would fail
    assert (~answers["undone"]).sum() == len(answers) - answers["undone"].sum()


def test_the_data_package_is_valid_by_the_frictionless_library(exported: Path) -> None:
    report = frictionless.validate(str(exported / "answers.csv.datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])
    package = json.loads((exported / "answers.csv.datapackage.json").read_text())
    answers, people = package["resources"]
    assert (answers["name"], people["name"]) == ("answers", "participants")
    assert answers["path"] == "answers.csv" and people["path"] == "answers.participants.csv"
    fields = {f["name"]: f for f in answers["schema"]["fields"]}
    assert fields["undone"]["type"] == "boolean" and fields["undone"]["trueValues"] == ["TRUE"]
    assert (
        fields["response_ms"]["unit"] == "ms"
        and "server" in fields["response_timer"]["description"]
    )
    assert answers["schema"]["foreignKeys"][0]["reference"]["resource"] == "participants"
    assert people["schema"]["primaryKey"] == ["participant"]
    # every column of each table is described, in order
    frame = pd.read_csv(exported / "answers.csv")
    assert [f["name"] for f in answers["schema"]["fields"]] == list(frame.columns)


def test_the_validation_can_fail(exported: Path, tmp_path: Path) -> None:
    """The validation is not vacuous: Python's True in a boolean column, a state that is
    none of the three, and an answer of a participant the participants table lacks, are
    each reported."""
    for name in export_files(exported / "answers.csv").values():
        (tmp_path / name.name).write_bytes(name.read_bytes())
    people = tmp_path / "answers.participants.csv"
    text = people.read_text(encoding="utf-8")
    people.write_text(text.replace("TRUE", "True", 1), encoding="utf-8")
    report = frictionless.validate(str(tmp_path / "answers.csv.datapackage.json"))
    assert not report.valid
    assert "type-error" in {e[0] for e in report.flatten(["type"])}
    people.write_text(text.replace(",unfinished,", ",unfinishd,", 1), encoding="utf-8")
    report = frictionless.validate(str(tmp_path / "answers.csv.datapackage.json"))
    assert [e[1] for e in report.flatten(["type", "fieldName"])] == ["state"]
    lines = text.splitlines()
    people.write_text("\n".join(ln for ln in lines if not ln.startswith("p01,")) + "\n")
    report = frictionless.validate(str(tmp_path / "answers.csv.datapackage.json"))
    assert "foreign-key" in {e[0] for e in report.flatten(["type"])}


def test_parquet_then_csv_of_one_name_live_side_by_side(made: Made, tmp_path: Path) -> None:
    """Parquet first, then CSV, in one folder (tests/study/test_export.py exports CSV
    first): no file is shared or touched, both tables hold the same, and the Parquet data
    package is valid too."""
    study = load_study(made.study.path)
    export_study(study, tmp_path / "answers.parquet")
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert set(first) == {p.name for p in export_files(tmp_path / "answers.parquet").values()}
    export_study(study, tmp_path / "answers.csv")
    assert len(list(tmp_path.iterdir())) == 10
    assert all((tmp_path / name).read_bytes() == data for name, data in first.items())
    report = frictionless.validate(str(tmp_path / "answers.parquet.datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])
    a = pd.read_csv(tmp_path / "answers.participants.csv")
    b = pd.read_parquet(tmp_path / "answers.participants.parquet")
    assert b["completed"].dtype == bool and b["pilot"].dtype == bool
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


def test_an_answer_carries_the_language_it_was_shown_in(made: Made) -> None:
    """The answer's own language wins; an answer without one gets the session's (the
    consent's)."""
    log = read_session(made.files["p01"])
    lines = [
        dataclasses.replace(
            line,
            event=line.event.model_copy(update={"language": "de"}),
        )
        if isinstance(line.event, AnswerRecord) and line.number % 2
        else line
        for line in log.lines
    ]
    shown = dataclasses.replace(log, lines=lines)
    sc = load_scenario(made.study.scenario_path).scenario
    rows, _ = session_rows(shown, sc, aspect_slugs(sc), None)
    answer_lines = [ln for ln in lines if isinstance(ln.event, AnswerRecord)]
    assert [r["language"] for r in rows] == ["de" if ln.number % 2 else "nl" for ln in answer_lines]
    assert {"de", "nl"} == {r["language"] for r in rows}


def test_the_undone_answer_is_false_or_true_never_missing(made: Made, tmp_path: Path) -> None:
    shutil.copytree(made.study.path, tmp_path / "s")
    study = load_study(tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    rec = start_session(loaded, "p04", study.sessions_dir, cache_dir=study.cache_dir)
    with rec:
        rec.answer(Choice.LEFT)
        rec.undo()
    export_study(study, tmp_path / "a.csv")
    answers = pd.read_csv(tmp_path / "a.csv")
    assert answers["undone"].dtype == bool
    assert answers[answers["participant"] == "p04"]["undone"].tolist() == [True]


def test_the_report_leaves_out_whom_the_export_leaves_out_and_says_why(made: Made) -> None:
    """``study report``'s sessions: the newest complete session of everyone else; p02
    unfinished, p03 withdrawn, p04 not started and p05's pilot named with the reason."""
    found = study_sessions(made.study.path)
    assert found.sessions == (made.files["p01"], made.files["p06"])
    why = dict(found.left_out)
    assert set(why) == {"p02", "p03", "p04", "p05"}
    assert why["p02"] == "unfinished after 3 answers"
    assert why["p03"].startswith("withdrawn ")
    assert why["p04"] == "not started"
    assert why["p05"].startswith("a pilot: --include-pilot")
    counted = study_sessions(made.study.path, include_pilot=True)
    assert counted.sessions == (made.files["p01"], made.files["p05"], made.files["p06"])
    assert "p05" not in dict(counted.left_out)


def test_an_allow_listed_panel_member_who_has_not_started_has_their_panel_id(
    tmp_path: Path,
) -> None:
    """The participants table names the panel id the study knows from its allow-list, so
    a coordinator can tell the panel who never came."""
    from tradeoff.study.panel import Panel

    panel = Panel("PROLIFIC_PID", (), b"0123456789abcdef", allow_list=True)
    study, _ = create_study(
        ROOT / "scenarios" / "breast-cancer-triage.toml",
        [],
        tmp_path / "s",
        panel=panel,
        panel_ids=["5f0c1e2d3b4a"],
    )
    export_study(load_study(study.path), tmp_path / "out.csv")
    people = pd.read_csv(tmp_path / "out.participants.csv", dtype={"panel_id": str})
    assert list(people["state"]) == ["not started"]
    assert list(people["panel_id"]) == ["5f0c1e2d3b4a"]
    assert people["participant"][0] == panel.participant_of("5f0c1e2d3b4a")


def test_a_declined_panel_entry_and_an_unstarted_pilot_are_said_as_such(tmp_path: Path) -> None:
    """Someone who came by the panel's link and declined has no session: the participants
    table says 'declined consent' (as study status does), with their panel id; a pilot
    who has not started is left out with the pilots unless asked for."""
    from tradeoff.study.entries import EntryLog, admit, new_pilot, record_decline
    from tradeoff.study.panel import Panel

    panel = Panel("PROLIFIC_PID", (), b"0123456789abcdef", cap=5)
    study, _ = create_study(
        ROOT / "scenarios" / "breast-cancer-triage.toml", [], tmp_path / "s", panel=panel
    )
    log = EntryLog(study.path)
    came = admit(panel, log, "6a1b2c3d", {})
    assert came.participant is not None
    record_decline(log, came.participant)
    assert new_pilot(log, "pilot-0123456789ab")
    export_study(load_study(study.path), tmp_path / "out.csv")
    people = pd.read_csv(tmp_path / "out.participants.csv", dtype={"panel_id": str})
    assert list(people["participant"]) == [came.participant]
    assert list(people["state"]) == ["declined consent"]
    assert list(people["panel_id"]) == ["6a1b2c3d"]
    export_study(load_study(study.path), tmp_path / "all.csv", include_pilot=True)
    everyone = pd.read_csv(tmp_path / "all.participants.csv")
    assert sorted(everyone["participant"]) == sorted([came.participant, "pilot-0123456789ab"])


THRESHOLD_CELLS = ("threshold", "threshold_low", "threshold_high")


def test_each_participant_has_the_threshold_the_study_report_gives(
    made: Made, exported: Path
) -> None:
    """The threshold columns hold each participant's threshold probability and its 90%
    interval, as :func:`stakeholder_threshold` reads it from the stakeholder the decide
    step builds by replaying the files anew (as ``study report`` does); empty for one who
    has not started. The summary's median is the complete participants'."""
    from tradeoff.choose.decision_curves import stakeholder_threshold

    people = pd.read_csv(exported / "answers.participants.csv").set_index("participant")
    study = load_study(made.study.path)
    scenario = load_scenario(study.scenario_path).scenario
    pids = ("p01", "p02", "p06")
    decided = decide(
        [made.files[pid] for pid in pids],
        scenario=study.scenario_path,
        populations=study.populations(),
    )
    for pid, s in zip(pids, decided.selection.stakeholders, strict=True):
        t = stakeholder_threshold(scenario, s)
        assert t is not None and t.low is not None and t.high is not None
        got = [people.loc[pid, c] for c in THRESHOLD_CELLS]
        assert got == pytest.approx([t.value, t.low, t.high], abs=1e-9)
        assert 0.0 <= t.low <= t.high <= 1.0
    assert people.loc["p04", list(THRESHOLD_CELLS)].isna().all()
    summary = export_study(study, exported / "again.csv")
    # the summary's median is the complete participants', as study report counts them
    # (p02's unfinished session has a threshold of its own, left out)
    complete = people.loc[["p01", "p06"], "threshold"]
    assert pd.notna(people.loc["p02", "threshold"])
    assert summary.threshold_count == 2
    assert summary.threshold_median == pytest.approx(float(complete.median()), abs=1e-12)


def test_options_by_their_aspects_alone_leave_the_threshold_empty(tmp_path: Path) -> None:
    """A scenario without classes decides no class: the threshold cells stay empty (and
    the data package still validates), though the participant has a pick."""
    study, _ = create_study(ROOT / "scenarios" / "llm-leaderboard.toml", ["p01"], tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    sc = loaded.scenario
    rec = start_session(
        loaded,
        "p01",
        study.sessions_dir,
        spec=sc.elicitation.override(budget=3),
        cache_dir=study.cache_dir,
    )
    oracle = SimulatedOracle.for_scenario(sc, (0.2, 0.2, 0.2, 0.2, 0.2))
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q), response_ms=1000.0)
        rec.finish()
    summary = export_study(load_study(study.path), tmp_path / "answers.csv")
    people = pd.read_csv(tmp_path / "answers.participants.csv")
    assert list(people.columns[8:11]) == list(THRESHOLD_CELLS)
    assert isinstance(people.loc[0, "final_pick"], str)
    assert people[list(THRESHOLD_CELLS)].isna().all().all()
    assert summary.threshold_median is None
    report = frictionless.validate(str(tmp_path / "answers.csv.datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])


def test_the_study_report_gives_each_threshold_in_the_table_and_the_spread(
    made: Made, exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``study report`` states each participant's threshold as the export's columns hold
    it, and the group's spread (lowest, median, highest) over the same people, whose
    median ``study export`` says too."""
    from tradeoff.choose.report import write_report
    from tradeoff.cli import main
    from tradeoff.curves import threshold_percent
    from tradeoff.study.report import decide_study

    md_path, _ = write_report(
        decide_study(study_sessions(made.study.path)), tmp_path / "r", argv=["study", "report"]
    )
    md = md_path.read_text(encoding="utf-8")
    people = pd.read_csv(exported / "answers.participants.csv").set_index("participant")
    for pid in ("p01", "p06"):
        t, low, high = (float(people.loc[pid, c]) for c in THRESHOLD_CELLS)
        said = (
            f"Participant {pid}'s answers put the threshold probability at "
            f"{threshold_percent(t)} (90% "
            f"credible interval {threshold_percent(low)}–{threshold_percent(high)})"
        )
        assert said in md, pid
    values = people.loc[["p01", "p06"], "threshold"]
    assert (
        f"Across the 2 people the threshold probability runs from {threshold_percent(values.min())}"
        in md
    )
    assert f"median {threshold_percent(float(values.median()))}." in md
    # and `study export` says the same median, over the same 2 people
    assert main(["study", "export", str(made.study.path), "--out", str(tmp_path / "a.csv")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert (
        "The 2 complete participants' median threshold probability is "
        f"{threshold_percent(float(values.median()))} (" in said
    )


def test_each_participant_with_answers_has_a_group_and_its_probability(exported: Path) -> None:
    """The population picture's groups (:func:`tradeoff.study.groups.find_groups`) in the
    participants table: a group (1: the largest) and the probability of belonging to it
    for everyone whose session is complete, as ``study report`` counts them (p01, p06),
    empty for the unfinished p02 (it was given a group the report's picture did not
    count) and for who has no answers."""
    people = pd.read_csv(exported / "answers.participants.csv").set_index("participant")
    assert {"group", "group_probability"} <= set(people.columns)
    for pid in ("p01", "p06"):
        assert int(people.loc[pid, "group"]) >= 1
        assert 0.0 < people.loc[pid, "group_probability"] <= 1.0
    assert people.loc["p02", "state"] == "unfinished"
    for pid in ("p02", "p04"):
        assert pd.isna(people.loc[pid, "group"]) and pd.isna(people.loc[pid, "group_probability"])
    codebook = pd.read_csv(exported / "answers.csv.codebook.csv")
    assert {"group", "group_probability"} <= set(codebook["column"])


def test_the_population_picture_of_the_report(made: Made) -> None:
    """``study report``'s population section (:mod:`tradeoff.study.population_picture`):
    the spread of the complete sessions' swing shares, the groups, how sure, each group's
    pick from the pool."""
    from tradeoff.study.population_picture import picture_of, picture_text

    study = load_study(made.study.path)
    found = study_sessions(study.path)
    picture = picture_of(found.sessions, study.scenario_path, study.populations())
    assert picture is not None
    assert set(picture.participants) == {"p01", "p06"}
    assert sum(picture.groups.sizes()) == 2
    names = set(pd.read_csv(ROOT / "scenarios" / "pools" / "breast-cancer.csv")["model"])
    assert all(p in names for p in picture.picks)
    spread = picture.spread()
    assert [s.name for s in spread] == list(picture.names)
    known = [s for s in spread if s.asked > 1]
    assert known and all(s.low <= s.median <= s.high for s in known)  # type: ignore[operator]
    assert all(s.median is None for s in spread if not s.asked)
    text = picture_text(picture)
    assert "## The population" in text and "| 1 |" in text
    assert set(picture.membership()) == {"p01", "p06"}
    # one group is not said to be people who weigh alike; a group's model is explained
    flat = " ".join(text.split())
    alike = "groups of people who weigh the aspects alike" in flat
    assert alike == (picture.groups.count > 1)
    assert ("The weights do not separate into groups" in flat) == (picture.groups.count == 1)
    assert "a member's own pick may differ" in flat


def test_the_population_spread_is_of_the_shares_session_show_gives(made: Made) -> None:
    """The spread table reads as each person's own review and ``session show`` do: swing
    shares in whole percent (the median of two people is the mean of their shares), with
    a sentence saying what a share is; not natural-unit weights normalised across units,
    which ``session show``'s per-unit weights contradict (latency 0.172 beside 0.000443
    per ms)."""
    from tradeoff.record.summary import summarise
    from tradeoff.study.population_picture import percent, picture_of, picture_text

    study = load_study(made.study.path)
    found = study_sessions(study.path)
    picture = picture_of(found.sessions, study.scenario_path, study.populations())
    assert picture is not None
    each = [summarise(path, populations=study.populations()) for path in found.sessions]
    for j, row in enumerate(picture.spread()):
        said = [None if s.shares is None else s.shares.values[j] for s in each]
        shares = [v for v in said if v is not None]
        assert len(shares) == row.asked and row.of == 2
        if len(shares) < 2:  # memory: nobody's answers informed it
            assert row.asked == 0 or row.median == pytest.approx(shares[0])
            continue
        assert row.median == pytest.approx(sum(shares) / 2, abs=1e-9)  # type: ignore[misc]
        assert row.low == pytest.approx(min(shares) + 0.1 * abs(shares[1] - shares[0]))
        natural = [s.result.weights[j] for s in each]
        if abs(natural[0] - shares[0]) > 0.01:
            assert row.median != pytest.approx(sum(natural) / 2, abs=1e-3)
    text = picture_text(picture)
    flat = " ".join(text.split())
    assert "share is the part of a person's weight" in flat and "whole range" in flat
    assert "| aspect | 10th percentile | median | 90th percentile | informed by |" in text
    for row in picture.spread():
        assert f"| {row.name} | {percent(row.low)} | {percent(row.median)} |" in text
    assert "natural units" not in text
    assert max(len(line) for line in text.splitlines() if not line.startswith("|")) <= 80


def test_study_report_writes_and_says_the_population(
    made: Made, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tradeoff.cli import main

    out = tmp_path / "report"
    assert main(["study", "report", str(made.study.path), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    written = (out / "population.md").read_text(encoding="utf-8")
    assert written.startswith("## The population") and "| group | participants |" in written
    assert "## The population" in said and str(out / "population.md") in said


def test_the_coordinators_page_gathers_the_population_at_most_every_few_minutes(
    made: Made,
) -> None:
    import threading
    from types import SimpleNamespace

    from tradeoff.web.coordinator import PICTURE_SECONDS, population_facts

    site = SimpleNamespace(status_lock=threading.Lock(), study=load_study(made.study.path))
    facts = population_facts(site, now=1000.0)  # type: ignore[arg-type]
    assert facts is not None
    assert sum(g["size"] for g in facts["groups"]) == 2
    assert len(facts["spread"]) == 4  # one row per aspect
    assert all(row["median"].endswith("%") or row["median"] == "—" for row in facts["spread"])
    assert any(row["median"].endswith("%") for row in facts["spread"])
    again = population_facts(site, now=1000.0 + PICTURE_SECONDS / 2)  # type: ignore[arg-type]
    assert again is facts  # not gathered again: the replays grow with the study
