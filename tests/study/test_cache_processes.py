"""A study's cache across the processes a coordinator runs (``study create``, the page's
processes, ``study status``, ``study export``), each a process of its own with one home:
every later process uses the entries the first wrote, and says nothing about them; a
process that sees another ``$XDG_STATE_HOME`` (another key) says which key it used; two
processes that start at once with no key yet end with one key (docs/architecture.md,
"What a cache trusts"). They start processes, hence the e2e tier."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tradeoff.study.cache import CACHE_DIR_ENV

from ..conftest import ROOT, small_scenario_file

pytestmark = pytest.mark.e2e

#: A participant's process as the study page runs one: a session of the study started
#: with its cache folder (the population, the pool's rows and how they were measured
#: memory-mapped or read from there), answered by a simulated person.
ANSWER = """
import sys
from tradeoff.ask.scenario import load_scenario
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.folder import load_study
from tradeoff.study.opening import start_session

study = load_study(sys.argv[1])
loaded = load_scenario(study.scenario_path)
oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.45, 0.3, 0.15, 0.1))
spec = loaded.scenario.elicitation.override(budget=4)
with start_session(
    loaded, sys.argv[2], study.sessions_dir, spec=spec, cache_dir=study.cache_dir
) as rec:
    while (q := rec.engine.next_query()) is not None:
        rec.answer(oracle.choose(q))
    rec.finish()
"""

#: A process that waits for the file ``argv[1]``, then reads (or makes) this user's key
#: and prints its short name.
KEY = """
import sys, time
from pathlib import Path
from tradeoff.study import sealed

go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.0005)
print(sealed.key_id())
"""


def _env(home: Path, state: Path | None = None) -> dict[str, str]:
    """One user's environment: their home, key folder and cache folder."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "HOME": str(home),
        "XDG_STATE_HOME": str(state or home / ".local" / "state"),
        CACHE_DIR_ENV: str(home / ".cache" / "tradeoff"),
    }
    env.pop("XDG_CACHE_HOME", None)
    return env


def _run(env: dict[str, str], cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done


def _tradeoff(env: dict[str, str], cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return _run(env, cwd, "-m", "tradeoff", *argv)


def _entries(folder: Path) -> dict[str, tuple[int, int]]:
    """Each entry of a cache folder by name: its inode and modification time (the same
    after a command that used it; another after one that rebuilt or rewrote it)."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def _made_study(tmp_path: Path, env: dict[str, str]) -> Path:
    scenario = small_scenario_file(tmp_path, "breast-cancer-triage")
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    _tradeoff(
        env, tmp_path, "study", "create", str(scenario), "--participants", "3",
        "--study", "s", "--codes", "codes.csv",
    )  # fmt: skip
    return tmp_path / "s"


def test_each_process_of_a_study_uses_the_entries_the_first_wrote_and_says_nothing(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path / "home")
    study = _made_study(tmp_path, env)
    made = _entries(study / "cache")
    assert {name.split("-")[0] for name in made} == {"population", "candidates", "measurement"}
    for pid in ("p01", "p02"):  # the page's processes, one after the other
        answered = _run(env, tmp_path, "-c", ANSWER, str(study), pid)
        assert answered.stderr == ""
    status = _tradeoff(env, tmp_path, "study", "status", str(study), "--json")
    export = _tradeoff(env, tmp_path, "study", "export", str(study), "--out", "a.csv")
    assert status.stderr == export.stderr == ""
    assert _entries(study / "cache") == made  # used as the first process wrote them
    facts = _entries(tmp_path / "home" / ".cache" / "tradeoff")
    assert len(facts) == 2  # what each session file says, kept by the first status
    again = _tradeoff(env, tmp_path, "study", "status", str(study), "--json")
    assert (again.stdout, again.stderr) == (status.stdout, "")
    assert _entries(tmp_path / "home" / ".cache" / "tradeoff") == facts  # read, not replayed
    assert json.loads(status.stdout)["complete"] == 2


def test_a_process_that_sees_another_key_folder_names_the_key_it_used(tmp_path: Path) -> None:
    """The same user with another ``$XDG_STATE_HOME`` in one process: that process has
    another key, so it rebuilds the study's entries, and says it was another key and
    which key it used, not that the entries were edited or copied."""
    env = _env(tmp_path / "home")
    study = _made_study(tmp_path, env)
    _run(env, tmp_path, "-c", ANSWER, str(study), "p01")
    other = _env(tmp_path / "home", tmp_path / "elsewhere")
    said = _tradeoff(other, tmp_path, "study", "status", str(study)).stderr
    lines = said.splitlines()
    assert len(lines) == 1 and "set aside and rebuilt" in said, said
    assert "another key" in said and "edited" not in said
    assert str(tmp_path / "elsewhere" / "tradeoff" / "cache-key") in said
    assert "XDG_STATE_HOME" in said


def test_study_serve_says_another_key_before_it_listens(tmp_path: Path) -> None:
    """``study serve`` under another key says so when it starts, before the line that
    gives the page's address (it said it with the first participant), and rebuilds the
    entries then; under the key that made them it says nothing and leaves them as made."""
    env = _env(tmp_path / "home")
    study = _made_study(tmp_path, env)
    made = _entries(study / "cache")
    for seen, home in ((False, env), (True, _env(tmp_path / "home", tmp_path / "elsewhere"))):
        server = subprocess.Popen(
            [sys.executable, "-m", "tradeoff", "study", "serve", str(study), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=home,
            cwd=tmp_path,
        )
        try:
            assert server.stdout is not None
            first = server.stdout.readline()  # the address: after everything said at start
            assert first.startswith("Study page on http://"), first
        finally:
            server.terminate()
            _, err = server.communicate(timeout=60)
        if seen:
            assert "another key" in err and "set aside and rebuilt" in err, err
            assert str(tmp_path / "elsewhere" / "tradeoff" / "cache-key") in err
            assert _entries(study / "cache").keys() == made.keys()
            assert _entries(study / "cache") != made  # rebuilt under the key in use
        else:
            assert err == ""
            assert _entries(study / "cache") == made


def test_processes_that_start_at_once_without_a_key_end_with_one(tmp_path: Path) -> None:
    env = _env(tmp_path / "home")
    go = tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", KEY, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        for _ in range(6)
    ]
    time.sleep(3)  # each has imported the package and waits
    go.touch()
    said = [p.communicate(timeout=120) for p in racers]
    assert all(p.returncode == 0 for p in racers), said
    assert all(err == "" for _, err in said), said
    names = {out.strip() for out, _ in said}
    assert len(names) == 1 and len(names.pop()) == 16
    folder = tmp_path / "home" / ".local" / "state" / "tradeoff"
    assert [p.name for p in folder.iterdir()] == ["cache-key"]  # no temporary key left
    assert (folder / "cache-key").stat().st_mode & 0o777 == 0o600
