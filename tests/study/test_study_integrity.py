"""A study's files cannot be changed, mixed up or lost without a command saying so."""

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
from tradeoff.study.folder import create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.study.status import study_status

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def pooled_scenario(tmp_path: Path) -> Path:
    """The shipped breast-cancer scenario (it names a pool) with its pool beside it."""
    folder = tmp_path / "src"
    (folder / "pools").mkdir(parents=True)
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
    (folder / "triage.toml").write_text(text.replace("seed = 11", "seed = 11\nsamples = 5000"))
    (folder / "pools" / "breast-cancer.csv").write_bytes(
        (SCENARIOS / "pools" / "breast-cancer.csv").read_bytes()
    )
    return folder / "triage.toml"


def test_every_copied_file_is_hashed_and_an_edited_pool_is_refused(tmp_path: Path) -> None:
    study, _ = create_study(pooled_scenario(tmp_path), ["p01"], tmp_path / "s")
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert data["version"] == 2 and set(data["files"]) == {"pools/breast-cancer.csv"}
    assert load_study(tmp_path / "s").files == study.files
    pool = tmp_path / "s" / "pools" / "breast-cancer.csv"
    pool.write_text(pool.read_text().replace("0.9", "0.8", 1))
    with pytest.raises(InputError, match="has changed since the study was made") as err:
        load_study(tmp_path / "s")
    assert err.value.source == str(pool)
    assert main(["study", "status", str(tmp_path / "s")]) == 2


def test_a_pool_linked_out_of_the_scenario_folder_is_never_copied(tmp_path: Path) -> None:
    scenario = pooled_scenario(tmp_path)
    pool = scenario.parent / "pools" / "breast-cancer.csv"
    secret = tmp_path / "secret.csv"
    secret.write_bytes(pool.read_bytes())
    pool.unlink()
    pool.symlink_to(secret)
    with pytest.raises(InputError, match="symbolic link"):
        create_study(scenario, ["p01"], tmp_path / "s")
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(version=99), "this tradeoff reads study versions 1, 2"),
        (lambda d: d.update(version=True), "this tradeoff reads study versions"),
        (lambda d: d["participants"].append(dict(d["participants"][0])), "appears twice"),
        (lambda d: d["participants"][0].update(id="p05\n"), "cannot be a folder name"),
        (lambda d: d["files"].update({"../x.csv": "0" * 64}), "is not a file in the study"),
    ],
)
def test_study_json_mistakes_are_refused(tmp_path: Path, change: object, says: str) -> None:
    create_study(pooled_scenario(tmp_path), ["p01", "p02"], tmp_path / "s")
    path = tmp_path / "s" / "study.json"
    data = json.loads(path.read_text())
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=says):
        load_study(tmp_path / "s")


def test_a_deeply_nested_study_json_is_an_error_not_a_crash(tmp_path: Path) -> None:
    create_study(pooled_scenario(tmp_path), ["p01"], tmp_path / "s")
    (tmp_path / "s" / "study.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="study"):
        load_study(tmp_path / "s")


def test_codes_file_is_private_new_and_written_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = str(pooled_scenario(tmp_path))
    create = ["study", "create", scenario, "--participants", "2"]
    codes = tmp_path / "codes.csv"
    assert main([*create, "--out", str(tmp_path / "s"), "--codes", str(codes)]) == 0
    assert stat.S_IMODE(codes.stat().st_mode) == 0o600
    rows = codes.read_text().splitlines()
    assert rows[0] == "participant,access_code" and len(rows) == 3
    study = load_study(tmp_path / "s")
    pid, code = rows[1].split(",")
    assert study.participant_for(code) == pid
    # A dangling link where the codes would go: refused before anything is made.
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "nowhere" / "x.csv")
    assert main([*create, "--out", str(tmp_path / "t"), "--codes", str(link)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert not (tmp_path / "t").exists() and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("out", ["/proc/tradeoff-study", "/dev/null/study"])
def test_a_study_that_cannot_be_made_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    codes = tmp_path / "codes.csv"
    argv = [
        "study",
        "create",
        str(pooled_scenario(tmp_path)),
        "--participants",
        "2",
        "--out",
        out,
        "--codes",
        str(codes),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "could not be made" in err and "Traceback" not in err
    assert not codes.exists()  # the codes of a study that does not exist are gone too


@pytest.mark.parametrize("value", ["²", "9" * 5000, "0", "10001", "-3"])
def test_participant_counts_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    argv = [
        "study",
        "create",
        str(pooled_scenario(tmp_path)),
        "--participants",
        value,
        "--out",
        str(tmp_path / "s"),
    ]
    assert main(argv) == 2
    assert "--participants" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def answer(study_dir: Path, pid: str, n: int, finish: bool = False) -> Path:
    study = load_study(study_dir)
    rec = start_session(load_scenario(study.scenario_path), pid, study.sessions_dir)
    for i in range(n):
        rec.answer(Choice.LEFT if i % 2 else Choice.RIGHT)
    if finish:
        rec.finish()
    return rec.path


def test_a_session_copied_into_another_participants_folder_is_not_counted(
    tmp_path: Path,
) -> None:
    create_study(pooled_scenario(tmp_path), ["p01", "p02"], tmp_path / "s")
    done = answer(tmp_path / "s", "p02", 3, finish=True)
    target = tmp_path / "s" / "sessions" / "p01"
    target.mkdir(parents=True, exist_ok=True)
    (target / done.name).write_bytes(done.read_bytes())
    status = study_status(load_study(tmp_path / "s"))
    rows = {r.participant: r for r in status.rows}
    assert rows["p02"].complete and not rows["p01"].complete
    assert "recorded by participant 'p02', not 'p01'" in rows["p01"].note
    assert [p.parent.name for p in status.complete_sessions()] == ["p02"]


def test_a_session_cut_at_a_line_boundary_shows_unfinished_with_its_answers(
    tmp_path: Path,
) -> None:
    create_study(pooled_scenario(tmp_path), ["p01"], tmp_path / "s")
    path = answer(tmp_path / "s", "p01", 4, finish=True)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))  # the closing record cut off
    row = study_status(load_study(tmp_path / "s")).rows[0]
    assert not row.complete and row.answers == 4


def test_status_names_every_files_warnings_with_their_lines(tmp_path: Path) -> None:
    create_study(pooled_scenario(tmp_path), ["p01"], tmp_path / "s")
    first = answer(tmp_path / "s", "p01", 2)
    with first.open("ab") as fh:
        fh.write(b'{"type": "note", "te')  # a line cut short by a crash
    os.utime(first, (1, 1))  # the older file of the two
    answer(tmp_path / "s", "p01", 1)
    row = study_status(load_study(tmp_path / "s")).rows[0]
    assert row.sessions == 2
    assert first.name in row.note and "line" in row.note


def test_wrong_codes_are_delayed_per_source_and_a_crowd_adds_a_little(tmp_path: Path) -> None:
    from tradeoff.study.attempts import GLOBAL_CEILING, record_failure, wrong_code_delay

    study, _ = create_study(pooled_scenario(tmp_path), ["p01"], tmp_path / "s")
    now = 1_000_000.0
    for i in range(5):
        record_failure(study, now + i, source="192.0.2.66")
    # the attacker's next wrong code waits 2^4 s; another address, guessing once, waits 0
    assert wrong_code_delay(study, "192.0.2.66", now + 10) == 16.0
    assert wrong_code_delay(study, "192.0.2.7", now + 10) == 0.0
    # a crowd of wrong codes from many addresses slows every wrong code a little, never
    # more than the ceiling
    for i in range(1000):
        record_failure(study, now + 20, source=f"198.51.100.{i % 250}")
    assert wrong_code_delay(study, "192.0.2.7", now + 30) == GLOBAL_CEILING
    # outside the window nothing counts; what a line says of its source is cleaned
    assert wrong_code_delay(study, "192.0.2.66", now + 10_000) == 0.0
    record_failure(study, now, source="evil\nsource")
    assert (study.path / "attempts.log").read_text().splitlines()[-1].endswith(" unknown")
