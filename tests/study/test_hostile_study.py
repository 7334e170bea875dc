"""No file in a study folder can poison a result or hold up a request.

* ``attempts.log`` grows with every wrong code for the study's whole life: a request reads
  a bounded end of it, and it is rotated (nothing logged is lost) past a bound;
* ``withdrawals.jsonl`` with junk, bytes that are not UTF-8, a link out of the study or a
  FIFO in its place is reported by line, never a crash, and never appended to; a full disk
  leaves it as it was;
* a FIFO among a participant's session files, ``/proc/self/environ`` as a consent text
  and a full disk during ``study create`` are located errors, not a hang, a leak or a
  traceback.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.study import attempts as attempts_mod
from tradeoff.study.attempts import ATTEMPTS_FILE, ATTEMPTS_TAIL, record_failure, wrong_code_delay
from tradeoff.study.folder import Study, create_study
from tradeoff.study.status import study_status
from tradeoff.study.withdrawals import read_withdrawals, withdraw, withdrawals_path, withdrawn

from ..conftest import ROOT, small_scenario_file
from ..webclient import Participant

pytestmark = pytest.mark.e2e

NOW = 2_000_000_000.0


def make(tmp_path: Path, consent: Path | None = None) -> tuple[Study, dict[str, str]]:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    return create_study(scenario, ["p01", "p02", "p03"], tmp_path / "s", consent=consent)


def bytes_read() -> int:
    """Bytes this process has read through system calls so far (Linux)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def run(
    args: list[str], limit: int | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``tradeoff ARGS`` in a process of its own (a FIFO that blocks it cannot block the
    tests), with files limited to ``limit`` bytes, standing in for a full disk."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if limit is not None:
            hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tradeoff", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
        preexec_fn=limited,
    )


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# -- attempts.log: nothing that grows with history on a hot path ---------------------------


def test_a_million_old_wrong_codes_cost_a_request_a_bounded_read(tmp_path: Path) -> None:
    study, _ = make(tmp_path)
    log = study.path / ATTEMPTS_FILE
    old = b"1000.000 198.51.100.1\n" * 1_000_000
    recent = b"".join(f"{NOW - 10 + i:.3f} 192.0.2.66\n".encode() for i in range(5))
    log.write_bytes(old + recent)
    before = bytes_read()
    delay = wrong_code_delay(study, "192.0.2.66", NOW)
    read = bytes_read() - before
    assert delay == 16.0  # its 5 recent wrong codes: 2^4 s; the million old ones count not
    assert wrong_code_delay(study, "192.0.2.7", NOW) == 0.0
    assert read <= 2 * ATTEMPTS_TAIL, f"{read} bytes read for one wrong code"
    # The next wrong code rotates the log: the whole of it is kept beside, and
    # attempts.log holds only the window the delay needs.
    record_failure(study, NOW, source="192.0.2.66")
    assert log.stat().st_size <= ATTEMPTS_TAIL
    kept = sorted(study.path.glob("attempts-*.log"))
    assert len(kept) == 1
    assert kept[0].read_bytes() == old + recent + f"{NOW:.3f} 192.0.2.66\n".encode()
    assert wrong_code_delay(study, "192.0.2.66", NOW) == 32.0
    assert wrong_code_delay(study, "192.0.2.7", NOW) == 0.0
    assert not list(study.path.glob(".*tmp"))


def _append(path: str, worker: int, count: int) -> None:
    attempts_mod.ATTEMPTS_ROTATE = 4096  # rotate often, while the others append
    attempts_mod.ATTEMPTS_TAIL = 1024
    study = Study(Path(path), "", "", b"", {}, "")
    for i in range(count):
        record_failure(study, NOW + i, source=f"10.0.{worker}.{i % 250}")


def test_processes_appending_while_the_log_rotates_lose_no_line(tmp_path: Path) -> None:
    import multiprocessing

    folder = tmp_path / "s"
    folder.mkdir()
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_append, args=(str(folder), w, 300)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    logs = [folder / ATTEMPTS_FILE, *folder.glob("attempts-*.log")]
    assert len(logs) > 5  # it did rotate, many times
    lines: set[bytes] = set()
    for path in logs:
        data = path.read_bytes()
        assert data.endswith(b"\n")  # whole lines only
        lines.update(data.splitlines())
    expected = {f"{NOW + i:.3f} 10.0.{w}.{i % 250}".encode() for w in range(4) for i in range(300)}
    assert lines == expected
    assert (folder / ATTEMPTS_FILE).stat().st_size <= 1024 + 4096


# -- withdrawals.jsonl ---------------------------------------------------------------------


def _record(pid: str, when: str = "2026-01-01T00:00:00+00:00") -> bytes:
    record = {"participant": pid, "time": when, "kept_session_files": []}
    return (json.dumps(record) + "\n").encode()


def test_withdrawing_twice_records_once_and_keeps_the_first_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second ``study withdraw`` (or the page's, after the command's) adds no record and
    moves no time; a file that already holds two records for one person (written before)
    reads as the first."""
    study, _ = make(tmp_path)
    path = withdrawals_path(study)
    first = withdraw(study, "p01", datetime(2026, 1, 1, tzinfo=UTC))
    again = withdraw(study, "p01", datetime(2026, 1, 2, tzinfo=UTC))
    assert again["time"] == first["time"] == "2026-01-01T00:00:00+00:00" and again["already"]
    assert path.read_bytes().count(b"\n") == 1
    assert main(["study", "withdraw", str(study.path), "p01"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "p01 was already withdrawn" in out and "at 2026-01-01T00:00:00+00:00" in out
    assert path.read_bytes().count(b"\n") == 1
    path.write_bytes(_record("p02") + _record("p02", "2026-02-01T00:00:00+00:00"))
    assert withdrawn(study) == {"p02": "2026-01-01T00:00:00+00:00"}


@pytest.mark.parametrize("junk", [b"{not json\n", b"\xff\xfe\x00 oops\n", b'["p01"]\n'])
def test_a_bad_withdrawal_line_is_named_and_skipped_never_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], junk: bytes
) -> None:
    study, _ = make(tmp_path)
    path = withdrawals_path(study)
    path.write_bytes(_record("p02") + junk + _record("p03"))
    assert withdrawn(study) == {
        "p02": "2026-01-01T00:00:00+00:00",
        "p03": "2026-01-01T00:00:00+00:00",
    }
    problems = read_withdrawals(study).problems
    assert [p.location for p in problems] == ["line 2"]
    assert "restore or remove line 2" in problems[0].fix
    assert main(["study", "status", str(study.path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: line 2:" in out and "restore or remove line 2" in out
    assert main(["study", "status", str(study.path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["problems"]) == 1 and data["withdrawn"] == 2
    # nothing is added to a file that cannot be read back; export stops at the same line
    before = path.read_bytes()
    assert main(["study", "withdraw", str(study.path), "p01"]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "restore or remove line 2, then withdraw again" in err
    assert "Traceback" not in err and path.read_bytes() == before
    assert main(["study", "export", str(study.path), "--out", str(tmp_path / "a.csv")]) == 2
    assert "restore or remove line 2" in capsys.readouterr().err
    assert not (tmp_path / "a.csv").exists()


async def test_the_web_page_serves_past_a_bad_withdrawal_line(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestServer

    from tradeoff.web.flow import make_web_app

    study, codes = make(tmp_path)
    withdrawals_path(study).write_bytes(b"junk\n" + _record("p02"))
    server = TestServer(make_web_app(study))
    await server.start_server()
    try:
        for pid, says in (("p01", ""), ("p02", "withdrawn")):
            p = Participant(str(server.make_url("/")))
            try:
                page = await p.enter(codes[pid])
                assert page.status == 200 and says in page.h1
            finally:
                await p.close()
    finally:
        await server.close()


def test_withdraw_never_follows_a_link_out_of_the_study(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study, _ = make(tmp_path)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(b"")
    withdrawals_path(study).symlink_to(outside)
    assert main(["study", "withdraw", str(study.path), "p01"]) == 2
    err = capsys.readouterr().err
    assert "withdrawals.jsonl" in err and "symbolic link" in err and "Traceback" not in err
    assert outside.read_bytes() == b""
    assert withdrawn(study) == {}
    assert "symbolic link" in " ".join(study_status(study).problems)


def test_a_fifo_as_withdrawals_or_session_file_blocks_nothing(tmp_path: Path) -> None:
    study, _ = make(tmp_path)
    os.mkfifo(withdrawals_path(study))
    (study.sessions_dir / "p01").mkdir()
    os.mkfifo(study.sessions_dir / "p01" / "glaucoma-screening-x.jsonl")
    status = run(["study", "status", str(study.path)], timeout=30)
    assert status.returncode == 0, status.stderr[-2000:]
    assert "is a FIFO, not a session file" in status.stdout
    assert "withdrawals.jsonl: is a FIFO" in status.stdout
    withdrew = run(["study", "withdraw", str(study.path), "p02"], timeout=30)
    assert withdrew.returncode == 2 and "is a FIFO" in withdrew.stderr
    assert "Traceback" not in withdrew.stderr


@pytest.mark.parametrize("existing", [True, False])
def test_withdraw_on_a_full_disk_loses_nothing_and_says_so(tmp_path: Path, existing: bool) -> None:
    study, _ = make(tmp_path)
    path = withdrawals_path(study)
    if existing:
        withdraw(study, "p02")
    before = files_of(study.path)
    size = path.stat().st_size if existing else 0
    result = run(["study", "withdraw", str(study.path), "p01"], limit=size + 10)
    assert result.returncode != 0
    assert "withdrawals.jsonl" in result.stderr and "was not recorded" in result.stderr
    assert "Traceback" not in result.stderr
    assert files_of(study.path) == before  # as it was; no empty file, no temporary file
    assert withdrawn(study) == ({"p02": withdrawn(study)["p02"]} if existing else {})
    assert run(["study", "withdraw", str(study.path), "p01"]).returncode == 0  # room again
    assert set(withdrawn(study)) == ({"p01", "p02"} if existing else {"p01"})


# -- study create --------------------------------------------------------------------------


@pytest.mark.parametrize("consent", ["/proc/self/environ", "/proc/self/status"])
def test_a_consent_text_is_never_a_system_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], consent: str
) -> None:
    scenario = small_scenario_file(tmp_path)
    argv = ["study", "create", str(scenario), "--participants", "2", "--out",
            str(tmp_path / "s"), "--consent", consent]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert consent in err and "not a consent text" in err
    assert not (tmp_path / "s").exists()


def test_a_fifo_or_an_oversized_consent_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    fifo = tmp_path / "info.md"
    os.mkfifo(fifo)
    big = tmp_path / "big.md"
    big.write_text("word " * 50_000)
    for consent, says in ((fifo, "is a FIFO"), (big, "larger than 200 KB")):
        argv = ["study", "create", str(scenario), "--participants", "2", "--out",
                str(tmp_path / "s"), "--consent", str(consent)]  # fmt: skip
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert str(consent) in err and says in err
        assert not (tmp_path / "s").exists()


def test_study_create_on_a_full_disk_is_a_located_error_leaving_nothing(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    codes = tmp_path / "codes.csv"
    out = tmp_path / "s"
    argv = ["study", "create", str(scenario), "--participants", "3", "--out", str(out),
            "--codes", str(codes)]  # fmt: skip
    for limit in (0, 20_000):  # the codes, then the study's own files, do not fit
        result = run(argv, limit=limit)
        assert result.returncode == 2, result.stderr[-2000:]
        assert "Traceback" not in result.stderr and "Fix:" in result.stderr
        assert not codes.exists() and not out.exists()


async def test_a_fifo_among_a_participants_sessions_blocks_no_page(tmp_path: Path) -> None:
    """The page lists and reads a participant's session files on every request: a FIFO
    among them is never opened (opening it waits for a writer, holding a worker thread)."""
    import asyncio

    from aiohttp.test_utils import TestServer

    from tradeoff.web.flow import make_web_app

    study, codes = make(tmp_path)
    (study.sessions_dir / "p01").mkdir(parents=True)
    fifo = study.sessions_dir / "p01" / "glaucoma-screening-x.jsonl"
    os.mkfifo(fifo)
    server = TestServer(make_web_app(study))
    await server.start_server()
    p = Participant(str(server.make_url("/")))
    try:
        page = await asyncio.wait_for(p.enter(codes["p01"]), timeout=20)
        assert page.status == 200
    finally:
        # Whatever happened, a thread waiting on the FIFO is let go.
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)
        await p.close()
        await server.close()
