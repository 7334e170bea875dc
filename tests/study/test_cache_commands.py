"""The population cache through whole sessions, commands and processes: a session recorded with
the cache replays the same without it, session show, pick and study status read it, a
participant's process imports neither scipy nor pandas (e2e; the cache's own tests are in
test_cache.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.cache import (
    CACHE_DIR_ENV,
)
from tradeoff.study.opening import resume_session, start_session

from ..conftest import ROOT, small_scenario_file
from .test_cache import _recorded

pytestmark = pytest.mark.e2e


def _count_session_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The session files (``*.jsonl`` under a study's ``sessions/``) read from now on in
    this process, one entry per read."""
    reads: list[str] = []
    read_bytes = Path.read_bytes

    def counting(self: Path) -> bytes:
        if self.suffix == ".jsonl" and self.parent.parent.name == "sessions":
            reads.append(str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    return reads


def test_files_not_known_are_replayed_side_by_side_with_the_same_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study's first status replays its files in one process per core; what each file
    says is the same as replayed one by one in this process, and is kept."""
    from tradeoff.study import counted
    from tradeoff.study.folder import create_study, load_study
    from tradeoff.study.status import study_status

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the replays run in this process")
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    scenario = small_scenario_file(tmp_path, "breast-cancer-triage")
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    people = [f"p{i:02d}" for i in range(8)]
    study, _ = create_study(scenario, people, tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    spec = loaded.scenario.elicitation.override(budget=4)
    for i, pid in enumerate(people):
        truth = (0.1 + 0.05 * i, 0.3, 0.2, 0.4 - 0.05 * i)
        oracle = SimulatedOracle.for_scenario(loaded.scenario, truth, seed=i)
        with start_session(loaded, pid, study.sessions_dir, spec=spec) as rec:
            while (q := rec.engine.next_query()) is not None and rec.engine.answered < 2 + i % 3:
                rec.answer(oracle.choose(q))
            if i % 2:
                rec.finish()
    monkeypatch.setattr(counted, "PARALLEL_FROM", 8)
    counted._FACTS.clear()
    sent: list[list[bytes | None]] = []

    class Spying(ProcessPoolExecutor):
        """The pool itself, noting the bytes sent to the processes that replay."""

        def map(self, fn: Any, *iterables: Any, **kwargs: Any) -> Any:
            sent.append(list(iterables[3]) if len(iterables) > 3 else [])
            return super().map(fn, *iterables, **kwargs)

    monkeypatch.setattr(counted, "ProcessPoolExecutor", Spying)
    reads = _count_session_reads(monkeypatch)
    assert counted.replay_unknown(study, people) == 8
    # each file read once, here, and its bytes sent to the process that replays it
    files = sorted(study.sessions_dir.glob("*/*.jsonl"))
    assert sorted(reads) == [str(p) for p in files]
    assert sorted(sent[0], key=lambda b: b or b"") == sorted(p.read_bytes() for p in files)
    side_by_side = study_status(load_study(study.path)).to_dict()
    assert counted.replay_unknown(study, people) == 0  # all known now
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    counted._FACTS.clear()
    monkeypatch.setattr(counted, "PARALLEL_FROM", 10**6)
    one_by_one = study_status(load_study(study.path)).to_dict()
    assert side_by_side == one_by_one
    assert side_by_side["complete"] == 4
    assert [r["answers"] for r in side_by_side["rows"]] == [2 + i % 3 for i in range(8)]


def test_session_show_and_select_read_the_cache_and_work_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    from tradeoff.study import sealed

    def read_only(entry: Path, parts: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    session = _recorded(tmp_path)
    outputs = []
    for folder in (tmp_path / "cache", tmp_path / "cache", tmp_path / "read-only", ""):
        monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
        with monkeypatch.context() as patched:
            if folder == tmp_path / "read-only":
                patched.setattr(sealed, "write_entry", read_only)
            assert main(["session", "show", str(session), "--json"]) == 0
            assert main(["pick", "--session", str(session), "--json"]) == 0
        out, err = capsys.readouterr()
        assert err == ""  # no traceback, no warning
        outputs.append(out)
    assert len(set(outputs)) == 1  # the same answer, cached, read back, or built in memory
    assert len(list((tmp_path / "cache").glob("population-*"))) == 1


def test_a_participants_process_needs_neither_scipy_nor_pandas(tmp_path: Path) -> None:
    """Importing either costs a participant's process 0.5–1.5 s before its first question
    (benchmarks/startup.py measures the whole start)."""
    from tradeoff.study.folder import create_study

    scenario = small_scenario_file(tmp_path, "breast-cancer-triage")
    with pytest.raises(InputError, match=r"pools/breast-cancer\.csv"):
        create_study(scenario, ["p01"], tmp_path / "s")  # a missing pool, named before
    assert not (tmp_path / "s").exists()  # anything is written
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    study, _ = create_study(scenario, ["p01"], tmp_path / "s")
    assert any(study.cache_dir.glob("candidates-*/rows.npy"))
    code = f"""
import sys
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.ask.scenario import load_scenario
from tradeoff.study.opening import start_session
from tradeoff.record.recorder import Recorder
from tradeoff.study.folder import load_study
study = load_study({str(study.path)!r})
loaded = load_scenario(study.scenario_path)
rec = start_session(loaded, "p01", study.sessions_dir, cache_dir=study.cache_dir)
rec.engine.space.warm()
assert rec.engine.next_query() is not None
print(sorted({{m.split(".")[0] for m in sys.modules}} & {{"scipy", "pandas", "matplotlib"}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]", out.stderr


def test_a_session_recorded_with_the_cache_replays_the_same_without_it(tmp_path: Path) -> None:
    path = small_scenario_file(tmp_path, "breast-cancer-triage")
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    loaded = load_scenario(path)
    sc = loaded.scenario
    truth = (0.45, 0.3, 0.15, 0.1)
    oracle = SimulatedOracle.for_scenario(sc, truth)
    rec = start_session(
        loaded,
        "p01",
        tmp_path / "sessions",
        spec=sc.elicitation.override(budget=12),
        cache_dir=tmp_path / "cache",
    )
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        result = rec.finish()
    assert any((tmp_path / "cache").glob("population-*"))
    log = read_session(rec.path)
    assert log.header.candidates is not None  # the cached pool rows were recorded
    again = replay(log).result()
    assert again.weights == result.weights
    assert again.intervals == result.intervals


def test_study_status_replays_each_session_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tradeoff.study import counted
    from tradeoff.study.folder import Study, create_study, load_study
    from tradeoff.study.status import study_status

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    scenario = small_scenario_file(tmp_path, "breast-cancer-triage")
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    study, _ = create_study(scenario, ["p01", "p02"], tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.45, 0.3, 0.15, 0.1))
    spec = loaded.scenario.elicitation.override(budget=5)
    for pid, finish in (("p01", True), ("p02", False)):
        rec = start_session(loaded, pid, study.sessions_dir, spec=spec)
        with rec:
            for _ in range(3 if not finish else 99):
                q = rec.engine.next_query()
                if q is None:
                    break
                rec.answer(oracle.choose(q))
            if finish:
                rec.finish()
    replays: list[Path] = []
    original = counted._replayed

    def counting(path: Path, participant: str, study: Study) -> counted.SessionFacts:
        replays.append(Path(path))
        return original(path, participant, study)

    monkeypatch.setattr(counted, "_replayed", counting)
    first = study_status(load_study(study.path)).to_dict()
    assert len(replays) == 2 and first["complete"] == 1
    assert len(list((tmp_path / "cache").glob("facts-*.json"))) == 2
    counted._FACTS.clear()  # as a new process: the facts come from the cache folder
    assert study_status(load_study(study.path)).to_dict() == first
    assert len(replays) == 2
    # A file that changed is replayed again (its bytes are in the key).
    (unfinished,) = (study.sessions_dir / "p02").glob("*.jsonl")
    with resume_session(unfinished) as rec:
        rec.answer(oracle.choose(rec.engine.next_query()))  # type: ignore[arg-type]
    counted._FACTS.clear()
    again = study_status(load_study(study.path)).to_dict()
    assert replays[2:] == [unfinished]
    assert [r["answers"] for r in again["rows"]] == [first["rows"][0]["answers"], 4]
    # A broken entry is set aside and built again; another engine's code never reads one.
    for entry in (tmp_path / "cache").glob("facts-*.json"):
        entry.write_text('{"complete": ')
    counted._FACTS.clear()
    assert study_status(load_study(study.path)).to_dict() == again
    assert len(replays) == 5
    monkeypatch.setattr(counted, "package_digest", lambda: "another version of the code")
    counted._FACTS.clear()
    assert study_status(load_study(study.path)).to_dict() == again
    assert len(replays) == 7


@pytest.mark.parametrize("cache", [True, False], ids=["cache folder", "no cache folder"])
def test_study_status_and_export_read_each_session_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: bool
) -> None:
    """With nothing cached, ``study status`` read each session file three times (its
    cache key twice, its replay once) and ``study export`` five times (its rows, then the
    status it counts from, then whether it is a pilot): each reads each file once."""
    from tradeoff.study import counted
    from tradeoff.study.folder import create_study

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache") if cache else "")
    scenario = small_scenario_file(tmp_path, "breast-cancer-triage")
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    people = ["p01", "p02", "p03"]
    study, _ = create_study(scenario, people, tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    spec = loaded.scenario.elicitation.override(budget=4)
    for i, pid in enumerate(people):
        oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.45, 0.3, 0.15, 0.1), seed=i)
        with start_session(loaded, pid, study.sessions_dir, spec=spec) as rec:
            while (q := rec.engine.next_query()) is not None and rec.engine.answered < 3:
                rec.answer(oracle.choose(q))
            if i < 2:
                rec.finish()
    files = sorted(str(p) for p in study.sessions_dir.glob("*/*.jsonl"))
    assert len(files) == 3
    reads = _count_session_reads(monkeypatch)
    for argv in (
        ["study", "status", str(study.path)],
        ["study", "export", str(study.path), "--out", str(tmp_path / "answers.csv")],
    ):
        counted._FACTS.clear()  # as a new process
        for entry in (tmp_path / "cache").glob("facts-*"):
            entry.unlink()  # and nothing in the cache folder
        reads.clear()
        assert main(argv) == 0
        assert sorted(reads) == files, argv[1]
