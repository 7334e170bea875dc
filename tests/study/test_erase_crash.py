"""An erasure killed at each of its steps (``TRADEOFF_ERASE_CRASH_AT``, the process ended
there as by ``kill -9``) leaves the old state or one that the next command completes to the
new: every other participant's records byte for byte as they were and still verifying, the
tombstone's chain whole."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.study.erase_journal import CRASH_ENV, JOURNAL_FILE
from tradeoff.study.erasures import ERASURES_FILE, read_erasures
from tradeoff.study.folder import load_study

from ..conftest import ROOT
from .erasing import A1, make_study, snapshot

pytestmark = pytest.mark.e2e


def _erase(
    folder: Path, participant: str, crash_at: int | None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    if crash_at is not None:
        env[CRASH_ENV] = str(crash_at)
    argv = ["study", "erase", str(folder), participant, "--yes", "--json"]
    return subprocess.run(
        [sys.executable, "-m", "tradeoff", *argv], capture_output=True, text=True, env=env
    )


def _visible(snap: dict[str, bytes]) -> dict[str, bytes]:
    """A study's files as its readers see them (an erasure's staged files left out)."""
    return {p: d for p, d in snap.items() if not Path(p).name.startswith(".erase")}


def _without_tombstone(snap: dict[str, bytes]) -> dict[str, bytes]:
    """The files but the tombstones, whose time is when each erasure ran."""
    assert ERASURES_FILE in snap
    return {p: d for p, d in snap.items() if p != ERASURES_FILE}


def test_a_crash_at_every_step_leaves_the_old_state_or_one_completed_to_the_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = make_study(tmp_path / "made")
    old = snapshot(made.study.path)
    done = tmp_path / "done"
    shutil.copytree(made.study.path, done)
    assert _erase(done, A1, None).returncode == 0
    new = snapshot(done)
    assert ERASURES_FILE in new and ERASURES_FILE not in old
    kept = {p: d for p, d in old.items() if p.startswith("sessions/") and made.a1 not in p}
    assert len(kept) == 2
    n = 0
    outcomes = []
    while True:
        n += 1
        assert n < 40, "an erasure of this study takes fewer steps"
        folder = tmp_path / f"crash-{n}"
        shutil.copytree(made.study.path, folder)
        run = _erase(folder, A1, n)
        if run.returncode == 0:
            break  # no step n: the erasure ran to its end
        assert run.returncode == 70, run.stderr
        crashed = snapshot(folder)
        journal = (folder / JOURNAL_FILE).exists()
        if not journal:  # before the journal: the old state, or after its removal: the new
            state = _visible(crashed)
            assert state == old or _without_tombstone(state) == _without_tombstone(new)
        outcomes.append("journal" if journal else ("old" if _visible(crashed) == old else "new"))
        # every other participant's session files: untouched, verifying, at every step
        for path, data in kept.items():
            assert crashed[path] == data
            read_session(folder / path)
        if journal and n % 2:  # erase itself, run again, completes it first
            again = _erase(folder, A1, None)
            assert again.returncode == 2 and "erased already" in again.stderr, again.stderr
        # the next command completes a journal, and reads the new state (or the old)
        assert main(["study", "status", str(folder), "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
        after = snapshot(folder)
        assert not (folder / JOURNAL_FILE).exists()
        states = {r["participant"]: r["state"] for r in status["rows"]}
        if _visible(after) == old:
            assert outcomes[-1] == "old"
            assert states[made.a1].startswith("withdrawn")
            continue
        erased = read_erasures(folder)
        assert erased.problems == () and list(erased.by_participant) == [made.a1]
        assert states[made.a1] == "erased"
        # the new state: every file as the uninterrupted erasure left it (the tombstone's
        # time aside, which is the moment each erasure ran)
        assert _without_tombstone(after) == _without_tombstone(new)
        assert load_study(folder).participant_for(made.codes["p01"]) == "p01"
    # the crash points cover the time before the journal, with it, and after
    assert n > 8 and {"old", "journal", "new"} <= set(outcomes), outcomes
