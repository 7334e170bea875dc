"""A cache is a cache, command by command: an entry this user's tradeoff did not write
(another seed's population, edited facts, another user's seal, a study folder copied to a
colleague) gives byte for byte what a run with no cache at all gives, and the command says
once that it rebuilt it (docs/architecture.md, "What a cache trusts"). Each runs whole
commands several times, hence the e2e tier; the entries themselves are tested in
``test_cache_trust``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study import sealed
from tradeoff.study.cache import CACHE_DIR_ENV, cached_population
from tradeoff.study.opening import start_session

from ..conftest import ROOT, small_scenario_file
from .test_cache import _recorded
from .test_cache_trust import (
    _as_new_process,
    _fresh_process,
    _other_seed,
    _rebuilt_lines,
    _replace_files,
)

pytestmark = pytest.mark.e2e

__all__ = ["_fresh_process"]  # its autouse fixture: each test as a command of its own


def _session_outputs(session: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str]:
    _as_new_process()
    assert main(["session", "show", str(session), "--json"]) == 0
    show = capsys.readouterr()
    assert main(["pick", "--session", str(session), "--json"]) == 0
    select = capsys.readouterr()
    return show.out, select.out, show.err + select.err


def test_another_seeds_population_in_the_users_cache_changes_no_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    session = _recorded(tmp_path)
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    show, select, err = _session_outputs(session, capsys)
    assert err == ""
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
    assert _session_outputs(session, capsys) == (show, select, "")  # the entries written
    (entry,) = folder.glob("population-*")
    scenario = read_session(session).header.scenario
    cached_population(_other_seed(scenario), tmp_path / "elsewhere")
    (other,) = (tmp_path / "elsewhere").glob("population-*")
    assert other.name != entry.name
    _replace_files(entry, other)
    again_show, again_select, err = _session_outputs(session, capsys)
    assert (again_show, again_select) == (show, select)  # byte for byte: as without a cache
    assert len(_rebuilt_lines(err)) == 1 and str(folder) in err
    assert err.count("\n") == 1  # one line for the command, not one per entry
    assert _session_outputs(session, capsys) == (show, select, "")  # rebuilt: used again


def test_an_entry_sealed_under_its_own_name_by_another_users_key_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another user's tradeoff (another key) seals another seed's population under this
    scenario's name: the seal is right for that key, and this user's key refuses it."""
    from tradeoff.ask.population import build_population
    from tradeoff.study.cache import _write_population, population_key

    session = _recorded(tmp_path)
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    show, select, _ = _session_outputs(session, capsys)
    folder = tmp_path / "shared"
    scenario = read_session(session).header.scenario
    names = tuple(c.name for c in scenario.classes)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-user"))
    sealed._KEYS.clear()
    forged = build_population(_other_seed(scenario).population, names)
    _write_population(folder / f"population-{population_key(scenario)}", forged.tables())
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "this-user"))
    sealed._KEYS.clear()
    monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
    again_show, again_select, err = _session_outputs(session, capsys)
    assert (again_show, again_select) == (show, select)
    assert len(_rebuilt_lines(err)) == 1


def _study_with_sessions(tmp_path: Path) -> Path:
    from tradeoff.study.folder import create_study

    scenario = small_scenario_file(tmp_path, "breast-cancer-triage")
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    study, _ = create_study(scenario, ["p01", "p02", "p03"], tmp_path / "s")
    loaded = load_scenario(study.scenario_path)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.45, 0.3, 0.15, 0.1))
    spec = loaded.scenario.elicitation.override(budget=5)
    for pid, answers, finish in (("p01", 99, True), ("p02", 3, False), ("p03", 2, False)):
        with start_session(loaded, pid, study.sessions_dir, spec=spec) as rec:
            while rec.engine.answered < answers and (q := rec.engine.next_query()) is not None:
                rec.answer(oracle.choose(q))
            if finish:
                rec.finish()
    return study.path


def _study_outputs(
    study: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, dict[str, bytes], str]:
    _as_new_process()
    assert main(["study", "status", str(study), "--json"]) == 0
    status = capsys.readouterr()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    assert main(["study", "export", str(study), "--out", str(out / "answers.csv")]) == 0
    export = capsys.readouterr()
    files = {f.name: f.read_bytes() for f in sorted(out.iterdir())}
    (package,) = [name for name in files if name.endswith("datapackage.json")]
    described = json.loads(files[package])
    assert described.pop("created")  # when it was written: the one thing that differs
    files[package] = json.dumps(described).encode()
    return status.out, files, status.err + export.err


def _forge_facts(entry: Path) -> None:
    """Make a facts entry say 42 answers, complete and flagged (its seal, if any, kept)."""
    lines = entry.read_text().split("\n")
    facts = json.loads(lines[-1])
    facts.update(answers=42, complete=True, flagged=True, consented=True)
    lines[-1] = json.dumps(facts)
    entry.write_text("\n".join(lines))


def test_edited_facts_and_another_seeds_population_change_no_status_or_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    study = _study_with_sessions(tmp_path)
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    shutil.move(study / "cache", tmp_path / "study-cache")  # no cache at all
    status, files, err = _study_outputs(study, tmp_path / "out", capsys)
    assert err == "" and json.loads(status)["complete"] == 1
    shutil.move(tmp_path / "study-cache", study / "cache")
    folder = tmp_path / "user-cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
    assert _study_outputs(study, tmp_path / "out", capsys) == (status, files, "")
    facts = sorted(folder.glob("facts-*.json"))
    assert len(facts) == 3
    for entry in facts:
        _forge_facts(entry)
    (entry,) = (study / "cache").glob("population-*")
    scenario = load_scenario(study / "scenario.toml").scenario
    cached_population(_other_seed(scenario), tmp_path / "elsewhere")
    (other,) = (tmp_path / "elsewhere").glob("population-*")
    _replace_files(entry, other)
    again_status, again_files, err = _study_outputs(study, tmp_path / "out", capsys)
    assert again_status == status  # not 42 answers, not "complete", not "flagged"
    assert again_files == files
    rebuilt = _rebuilt_lines(err)
    assert len(rebuilt) == 2 and err.count("\n") == 2  # one line a folder, not one an entry
    assert any(str(folder) in line for line in rebuilt)
    assert any(str(study / "cache") in line for line in rebuilt)


def test_a_study_folder_sent_to_a_colleague_has_its_cache_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The colleague's tradeoff has another key: what the study's cache holds was not
    written by it, so it is rebuilt (once, said once), then used."""
    study = _study_with_sessions(tmp_path)
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    status, files, _ = _study_outputs(study, tmp_path / "out", capsys)
    seals = {p.parent.name: p.read_bytes() for p in (study / "cache").glob("*/seal")}
    assert len(seals) == 2  # the population and the pool's rows
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "colleague"))
    sealed._KEYS.clear()
    _as_new_process()
    assert main(["study", "status", str(study), "--json"]) == 0
    got = capsys.readouterr()
    assert got.out == status
    assert len(_rebuilt_lines(got.err)) == 1
    from tradeoff.study.folder import load_study
    from tradeoff.study.opening import start_session as start

    s = load_study(study)
    start(load_scenario(s.scenario_path), "p09", tmp_path / "x", cache_dir=s.cache_dir).close()
    again = {p.parent.name: p.read_bytes() for p in (study / "cache").glob("*/seal")}
    assert set(again) == set(seals) and all(again[k] != seals[k] for k in seals)
    assert _study_outputs(study, tmp_path / "out", capsys) == (status, files, "")


def test_an_unknown_home_in_the_cache_folder_is_a_located_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    """As the command line runs it, in a process of its own."""
    session = _recorded(tmp_path)
    env = {**os.environ, CACHE_DIR_ENV: "~nosuchuser/x"}
    for argv in (
        ["session", "show", str(session), "--json"],
        ["pick", "--session", str(session)],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tradeoff", *argv],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
        assert done.stderr.startswith(f"{CACHE_DIR_ENV}: '~nosuchuser/x'")
        assert "no user 'nosuchuser'" in done.stderr and "Fix:" in done.stderr
