"""Session files: durable, locked, 0600, replayable; truncated lines reported, never lost."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.learn import Choice
from tradeoff.record.log import read_session, unfinished_sessions
from tradeoff.record.recorder import Recorder, SessionLocked
from tradeoff.record.records import check_participant
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import small_scenario_file, spec

pytestmark = [pytest.mark.core, pytest.mark.other_path]

TRUTH = [0.5, 0.2, 0.2, 0.1]


def small_scenario(tmp_path: Path) -> Path:
    return small_scenario_file(tmp_path)


def record(tmp_path: Path, answers: int = 8) -> Recorder:
    loaded = load_scenario(small_scenario(tmp_path))
    rec = start_session(
        loaded, "dr-lee", tmp_path / "sessions", spec=spec(loaded.scenario, budget=20)
    )
    oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTH)
    for _ in range(answers):
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(oracle.choose(q), response_ms=1234.5)
    return rec


def test_file_layout_header_and_mode(tmp_path: Path) -> None:
    rec = record(tmp_path, 3)
    rec.close()
    assert rec.path.parent == tmp_path / "sessions" / "dr-lee"
    assert rec.path.name.startswith("glaucoma-screening-") and rec.path.suffix == ".jsonl"
    assert stat.S_IMODE(os.stat(rec.path).st_mode) == 0o600
    lines = rec.path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["type"] == "header" and header["format"] == 3
    assert all(len(json.loads(line)["chain"]) == 64 for line in lines)
    assert header["participant"] == "dr-lee" and header["scenario_id"] == "glaucoma-screening"
    assert len(header["scenario_sha256"]) == 64 and "[population]" in header["scenario_text"]
    assert {"strategy", "seed", "started", "tradeoff", "scenario_text"} <= set(header)
    assert "scenario" not in header  # the scenario is stored once, as its text
    answer = json.loads(lines[1])
    assert answer["type"] == "answer" and answer["choice"] in ("left", "right", "indifferent")
    assert {"left", "right"} <= set(answer["query"]) and answer["response_ms"] == 1234.5


def test_every_answer_is_on_disk_before_the_next_question(tmp_path: Path) -> None:
    rec = record(tmp_path, 0)
    for n in range(1, 6):
        rec.answer(Choice.LEFT)
        # A second reader sees it at once (written and fsynced, not buffered).
        assert sum(e.type == "answer" for e in read_session(rec.path).events) == n
    rec.close()


def test_replay_reproduces_the_result_exactly(tmp_path: Path) -> None:
    rec = record(tmp_path, 12)
    rec.undo()
    rec.answer(Choice.INDIFFERENT)
    rec.note("a note")
    result = rec.finish()
    rec.close()
    log = read_session(rec.path)
    assert log.finished
    again = replay(log).result()
    assert again.weights == result.weights and again.intervals == result.intervals


def test_a_replay_without_asking_reaches_the_same_state(tmp_path: Path) -> None:
    """``replay(check=False)`` gives a strategy that learns from any question every answer
    as recorded, without choosing its own question first: the same particles, result and
    consistency as the checked replay, with a repeat, an undo and a "can't tell"."""
    import numpy as np

    from tradeoff.learn.engine import consistency_of

    loaded = load_scenario(small_scenario_file(tmp_path, "breast-cancer-triage"))
    rec = start_session(
        loaded,
        "dr-lee",
        tmp_path / "sessions",
        spec=spec(loaded.scenario, strategy="joint", budget=14),
    )
    oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTH, noise=None)
    for n in range(10):
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(Choice.INDIFFERENT if n == 4 else oracle.choose(q))
    rec.undo()
    rec.answer(Choice.RIGHT)
    rec.close()
    checked = replay(read_session(rec.path))
    quick = replay(read_session(rec.path), check=False)
    assert checked.learns_from_any_question and checked.answered == quick.answered == 10
    assert np.array_equal(checked.state.swing, quick.state.swing)
    assert np.array_equal(checked.state.log_weights, quick.state.log_weights)
    assert checked.result() == quick.result()
    assert consistency_of(checked) == consistency_of(quick)
    assert checked.next_query() == quick.next_query()


def test_truncated_last_line_is_reported_and_skipped(tmp_path: Path) -> None:
    rec = record(tmp_path, 5)
    rec.close()
    with open(rec.path, "ab") as f:
        f.write(b'{"type": "answer", "index": 6, "que')  # the power went out here
    log = read_session(rec.path)
    assert log.truncated_tail
    assert any("line 7 is truncated" in w for w in log.warnings)
    assert sum(e.type == "answer" for e in log.events) == 5
    resumed = Recorder.resume(rec.path)
    assert resumed.engine.answered == 5
    resumed.answer(Choice.RIGHT)
    resumed.close()
    again = read_session(rec.path)
    assert sum(e.type == "answer" for e in again.events) == 6
    assert any("not a complete record" in w for w in again.warnings)  # reported, not hidden


def test_two_processes_cannot_write_one_session(tmp_path: Path) -> None:
    rec = record(tmp_path, 2)
    with pytest.raises(SessionLocked, match="another tradeoff"):
        Recorder.resume(rec.path)
    rec.close()
    Recorder.resume(rec.path).close()


def test_changed_scenario_is_refused_unless_the_embedded_copy_is_used(tmp_path: Path) -> None:
    rec = record(tmp_path, 3)
    rec.close()
    path = small_scenario(tmp_path)
    path.write_text(path.read_text().replace("budget = 30", "budget = 31"))
    with pytest.raises(InputError, match="different version"):
        Recorder.resume(rec.path, current=load_scenario(path))
    resumed = Recorder.resume(rec.path, current=load_scenario(path), use_embedded=True)
    assert resumed.engine.answered == 3
    resumed.close()


@pytest.mark.parametrize("bad", ["a/b", "..", "x..y", "", " lee", "lee\x00", "tab\tid", "-x"])
def test_unsafe_participant_ids_are_rejected(bad: str) -> None:
    with pytest.raises(InputError, match="cannot be a folder name"):
        check_participant(bad)


def test_unfinished_sessions_are_found(tmp_path: Path) -> None:
    rec = record(tmp_path, 2)
    rec.close()
    found = unfinished_sessions(tmp_path / "sessions", "dr-lee", "glaucoma-screening")
    assert found == [rec.path]
    again = Recorder.resume(rec.path)
    again.finish()
    again.close()
    assert unfinished_sessions(tmp_path / "sessions", "dr-lee", "glaucoma-screening") == []


def test_session_of_another_version_replays_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Questions chosen another way (here: always at the posterior median, with repeats of
    the least believed answer) replay as recorded, to the same result, with a warning; the
    session then continues with this version's questions, appended to the same file."""
    import tradeoff.learn.probabilistic as prob
    import tradeoff.record.recorder as recorder

    with monkeypatch.context() as patch:
        patch.setattr(prob, "QUESTION_QUANTILES", (0.5,))
        patch.setattr(prob.ProbabilisticStrategy, "_repeat_candidate", _oldest_repeat)
        patch.setattr(recorder, "__version__", "0.1.9")  # the header names the other version
        rec = record(tmp_path, 14)
        recorded = rec.engine.result()
        asked = [q for q, _ in rec.engine.history]
        rec.close()
    log = read_session(rec.path)
    engine = replay(log)
    assert [q for q, _ in engine.history] == asked
    assert engine.result() == recorded
    assert any("differ from those this version" in w for w in log.warnings)
    assert any(
        q != engine_q for q, engine_q in zip(asked, _fresh_questions(tmp_path, 14), strict=True)
    )
    again = Recorder.resume(rec.path)
    assert any("applied to the questions as recorded" in w for w in again.warnings)
    again.answer(Choice.LEFT)
    again.close()
    assert sum(e.type == "answer" for e in read_session(rec.path).events) == 15


def _oldest_repeat(self: object, state: object) -> int | None:
    answered: int = state.answered  # type: ignore[attr-defined]
    return 0 if answered == 5 else None


def _fresh_questions(tmp_path: Path, n: int) -> list[object]:
    (tmp_path / "fresh").mkdir()
    rec = record(tmp_path / "fresh", n)
    rec.close()
    return [q for q, _ in rec.engine.history]


def as_format_1(path: Path) -> list[str]:
    """The file's lines as an older version wrote them: format 1, no chain of hashes."""
    out = []
    for line in path.read_text().splitlines():
        data = json.loads(line)
        data.pop("chain")
        if data["type"] == "header":
            data["format"] = 1
        out.append(json.dumps(data))
    return out


def test_paper_session_of_another_version_is_refused(tmp_path: Path) -> None:
    loaded = load_scenario(small_scenario(tmp_path))
    rec = start_session(
        loaded,
        "dr-lee",
        tmp_path / "sessions",
        spec=spec(loaded.scenario, strategy="paper", budget=20),
    )
    for _ in range(3):
        rec.answer(Choice.LEFT)
    rec.close()
    lines = as_format_1(rec.path)
    first, second = json.loads(lines[1]), json.loads(lines[2])
    lines[1], lines[2] = json.dumps(second), json.dumps(first)  # asked in another order
    rec.path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="learns only from its own questions"):
        replay(read_session(rec.path))


def test_tampered_answer_of_an_unchained_file_is_detected(tmp_path: Path) -> None:
    rec = record(tmp_path, 3)
    rec.close()
    lines = as_format_1(rec.path)
    event = json.loads(lines[2])
    event["query"]["left"]["accuracies"][0] += 0.01  # the threshold no longer fits the options
    lines[2] = json.dumps(event)
    rec.path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="not one this scenario builds") as info:
        replay(read_session(rec.path))
    assert "line 3 (answer 2), field 'query'" in info.value.message()
    assert "changed afterwards" in info.value.message()


def test_unchained_file_replays(tmp_path: Path) -> None:
    rec = record(tmp_path, 5)
    rec.close()
    expected = rec.engine.result()
    rec.path.write_text("\n".join(as_format_1(rec.path)) + "\n")
    assert replay(read_session(rec.path)).result() == expected
    again = Recorder.resume(rec.path)  # appends unchained lines to an unchained file
    again.answer(Choice.LEFT)
    again.close()
    assert "chain" not in rec.path.read_text().splitlines()[-1]
    assert replay(read_session(rec.path)).answered == 6


def _edit(path: Path, change: object) -> str:
    lines = path.read_text().splitlines()
    change(lines)  # type: ignore[operator]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        read_session(path)
    return info.value.message()


def test_edited_deleted_and_moved_lines_are_evident(tmp_path: Path) -> None:
    rec = record(tmp_path, 6)
    rec.close()
    original = rec.path.read_text()

    def edit(lines: list[str]) -> None:
        event = json.loads(lines[3])
        event["choice"] = "left" if event["choice"] != "left" else "right"
        lines[3] = json.dumps(event, ensure_ascii=False)

    assert "line 4: does not match its chain hash: this line was edited" in _edit(rec.path, edit)
    rec.path.write_text(original)
    assert "line 3: does not match its chain hash" in _edit(rec.path, lambda lines: lines.pop(2))
    rec.path.write_text(original)

    def swap(lines: list[str]) -> None:
        lines[2], lines[3] = lines[3], lines[2]

    assert "line 3" in _edit(rec.path, swap)
    rec.path.write_text(original)
    assert "line 1" in _edit(
        rec.path, lambda lines: lines.__setitem__(0, lines[0].replace('"seed": 0', '"seed": 1'))
    )


def test_session_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = record(tmp_path, 10)
    rec.undo()
    rec.close()
    assert main(["session", "show", str(rec.path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["participant"] == "dr-lee" and data["scenario_id"] == "glaucoma-screening"
    assert data["answers"] == 9 and data["undos"] == 1 and data["complete"] is False
    assert len(data["weights"]) == 4 and len(data["intervals"]) == 4
    assert len(data["swing_weights"]) == 4 and len(data["swing_intervals"]) == 4
    assert main(["session", "show", str(rec.path)]) == 0
    out = capsys.readouterr().out
    assert "dr-lee" in out and "over its whole range (swing)" in out


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "empty"),
        (b"not json\n", "not a session header"),
        (b'{"type": "answer"}\n', "not a session header"),
    ],
)
def test_bad_session_files(
    tmp_path: Path, content: bytes, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    assert main(["session", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


def test_session_show_says_why_a_session_of_a_scenario_with_a_pool_has_no_pick(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The example sessions asked about the weights, not the pool's models (their headers
    record no candidates): `session show` says there is no pick and where one comes from,
    rather than leaving it out unsaid."""
    from ..conftest import ROOT

    example = next((ROOT / "sessions" / "examples" / "example-oncologist").glob("*.jsonl"))
    assert main(["session", "show", str(example)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "No pick here: the questions were not aimed at the pool's models" in out
    assert "tradeoff pick --session FILE picks from these weights." in out
    assert "The pick the questions" not in out


def test_the_header_names_the_scenario_absolute_unless_given_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session names its scenario file by its absolute path (read from any folder, it
    finds the files beside it); given ``scenario_path`` (the example sessions in git give
    theirs relative to the repository) the header keeps that path as given, and the
    session reads back and replays from the folder that path is relative to."""
    small_scenario(tmp_path)
    monkeypatch.chdir(tmp_path)
    loaded = load_scenario(Path("glaucoma-screening.toml"))
    assert not Path(loaded.path).is_absolute()
    plain = start_session(loaded, "dr-lee", "sessions", spec=spec(loaded.scenario, budget=3))
    plain.close()
    assert read_session(plain.path).header.scenario_path == str(
        tmp_path.resolve() / "glaucoma-screening.toml"
    )
    given = start_session(
        loaded,
        "dr-kim",
        "sessions",
        spec=spec(loaded.scenario, budget=3),
        scenario_path="glaucoma-screening.toml",
    )
    given.answer(Choice.LEFT)
    given.close()
    assert (
        json.loads(given.path.read_text().splitlines()[0])["scenario_path"]
        == "glaucoma-screening.toml"
    )
    log = read_session(given.path)
    assert log.header.scenario_path == "glaucoma-screening.toml" and replay(log).answered == 1


def test_no_example_session_names_a_folder_of_the_machine_it_was_made_on() -> None:
    """The example sessions in git named the scenario by the absolute path of the machine
    that made them ('/work/wt/integrate/scenarios/…'): no string in them is an absolute
    path, and no file under sessions/examples names the folder the repository is in."""
    from ..conftest import ROOT

    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return []

    folder = ROOT / "sessions" / "examples"
    sessions = sorted(folder.glob("*/*.jsonl"))
    assert len(sessions) == 2
    for path in sessions:
        found = [s for line in path.read_text().splitlines() for s in strings(json.loads(line))]
        assert [s for s in found if Path(s).is_absolute()] == [], path
        header = json.loads(path.read_text().splitlines()[0])
        assert header["scenario_path"] == "scenarios/breast-cancer-triage.toml"
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        assert str(ROOT) not in path.read_text(errors="replace"), path
