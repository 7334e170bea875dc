"""A study under load: N participants answering through ``tradeoff serve --study`` at once.

Run: ``.venv/bin/python -m benchmarks.study_load_terminal`` (writes
benchmarks/results/study_load_terminal.md).

For each N a fresh study of the breast-cancer triage scenario is made (``study create``
builds its cache) and ``tradeoff serve --study`` is started on loopback (it forks each
participant's app from a prepared process, :mod:`tradeoff.tui.forkserver`). N simulated
participants then connect as a browser does: a websocket to ``/ws`` with the page's
``Origin``, speaking textual-serve's protocol (``["stdin", keys]`` in, the terminal's
output as binary frames out). They arrive one every ``--arrival`` seconds; each types its
own access code, then answers one question every ``--every`` seconds (A or B at random,
seeded) for ``--answers`` questions or until its session ends.

Measured at the participant's end of the websocket:

* **start**: connection opened → the access-code screen drawn;
* **code → question 1**: Enter pressed → the first question drawn;
* **key → next**: a key sent → the next question (its "question n ·" line) or the end of
  the questions drawn, which covers the server's relay, the app's engine, the answer
  written and fsynced, and the redraw; over all keys, and over the keys sent once every
  participant had their first question ("all in": no one is arriving any more).

Memory is sampled once a second from ``/proc`` for the server and every process under it:
each participant's peak resident set (RSS: pages it touches, shared ones included) and the
largest total proportional set (PSS: shared pages split between the processes that map
them, so the sum is what the machine holds). Everything stays on loopback, with a bounded
number of participants and answers; each N is one run, so figures are one sample each.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from benchmarks._table import markdown, write
from tradeoff.study.folder import create_study

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "breast-cancer-triage.toml"
WIDTH, HEIGHT = 100, 32
#: Terminal escape sequences (CSI, OSC, two-character ones), removed before text is matched.
ESCAPES = re.compile(r"\x1b\[[0-9;?<=>!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")
START_MARK = "access code"
END_MARK = "What we learned"


@dataclass
class Participant:
    """What one simulated participant measured."""

    start: float | None = None
    first: float | None = None
    ready_at: float | None = None  # when question 1 was drawn (perf_counter)
    keys: list[tuple[float, float]] = field(default_factory=list)  # (sent at, latency)
    error: str | None = None


class Screen:
    """The text a websocket client has received, escape sequences removed."""

    def __init__(self) -> None:
        self.text = ""
        self.changed = asyncio.Event()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> None:
        self.text += ESCAPES.sub("", self._decoder.decode(data))
        self.changed.set()

    async def wait_for(self, marks: tuple[str, ...], since: int, timeout: float) -> str:
        """Wait until one of ``marks`` appears after position ``since``; returns it."""
        deadline = time.perf_counter() + timeout
        while True:
            tail = self.text[since:]
            for mark in marks:
                if mark in tail:
                    return mark
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"none of {marks} within {timeout:.0f} s")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)


async def participant(
    http: aiohttp.ClientSession, port: int, code: str, args: argparse.Namespace, seed: int
) -> Participant:
    out = Participant()
    screen = Screen()
    rng = random.Random(seed)
    url = f"ws://127.0.0.1:{port}/ws?width={WIDTH}&height={HEIGHT}"
    origin = f"http://127.0.0.1:{port}"
    try:
        opened = time.perf_counter()
        async with http.ws_connect(url, headers={"Origin": origin}, heartbeat=None) as ws:

            async def read() -> None:
                async for msg in ws:
                    if msg.type == aiohttp.WSMsgType.BINARY:
                        screen.feed(msg.data)
                    elif msg.type == aiohttp.WSMsgType.TEXT:
                        continue
                    else:
                        break

            reader = asyncio.create_task(read())
            try:
                await screen.wait_for((START_MARK,), 0, args.timeout)
                out.start = time.perf_counter() - opened
                await asyncio.sleep(0.5)  # the code is typed
                mark = len(screen.text)
                sent = time.perf_counter()
                await ws.send_str(json.dumps(["stdin", code + "\r"]))
                await screen.wait_for(("question 1 ·",), mark, args.timeout)
                out.ready_at = time.perf_counter()
                out.first = out.ready_at - sent
                for n in range(1, args.answers + 1):
                    await asyncio.sleep(args.every * rng.uniform(0.9, 1.1))
                    mark = len(screen.text)
                    sent = time.perf_counter()
                    await ws.send_str(json.dumps(["stdin", rng.choice("ab")]))
                    seen = await screen.wait_for(
                        (f"question {n + 1} ·", END_MARK), mark, args.timeout
                    )
                    out.keys.append((sent, time.perf_counter() - sent))
                    if seen == END_MARK:
                        break
                await ws.send_str(json.dumps(["stdin", "q"]))  # save and quit
                await asyncio.sleep(0.5)
            finally:
                reader.cancel()
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    return out


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: pid → (parent pid, command line)."""
    out: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        out[int(entry)] = (parent, cmdline)
    return out


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in kB, or (0, 0) if it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            fields = {
                line.split(":")[0]: int(line.split()[1]) for line in fh if line.endswith("kB\n")
            }
        return fields.get("Rss", 0), fields.get("Pss", 0)
    except (OSError, ValueError, IndexError):
        return 0, 0


@dataclass
class Memory:
    """Peaks seen by :func:`sample_memory` (kB)."""

    apps: dict[int, tuple[int, int]] = field(default_factory=dict)  # pid → (RSS, PSS)
    server: int = 0
    prepared: int = 0
    total_pss: int = 0


async def sample_memory(server: int, stop: asyncio.Event) -> Memory:
    """Sample once a second until ``stop``: each participant's app (a child of the prepared
    process, or a ``tradeoff elicit`` process) at its peak RSS and PSS, the server, the
    prepared process, and the largest total PSS of all of them (the small per-connection
    commands included)."""
    memory = Memory()
    while not stop.is_set():
        table = _processes()
        below: list[int] = []
        frontier = [server]
        while frontier:
            pid = frontier.pop()
            children = [c for c, (p, _) in table.items() if p == pid]
            below += children
            frontier += children
        rss, total = _memory_kb(server)
        memory.server = max(memory.server, rss)
        for pid in below:
            rss, pss = _memory_kb(pid)
            total += pss
            parent, cmdline = table[pid]
            if "tradeoff.tui.forkserver" in cmdline and parent == server:
                memory.prepared = max(memory.prepared, rss)
            elif "tradeoff.tui.forkserver" in cmdline or "tradeoff elicit" in cmdline:
                old = memory.apps.get(pid, (0, 0))
                memory.apps[pid] = (max(old[0], rss), max(old[1], pss))
        memory.total_pss = max(memory.total_pss, total)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
    return memory


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def run(n: int, args: argparse.Namespace, tmp: Path) -> dict[str, float | int]:
    ids = [f"p{i + 1:03d}" for i in range(n)]
    study, codes = create_study(SCENARIO, ids, tmp / f"study-{n}")
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeoff",
            "serve",
            "--study",
            str(study.path),
            "--port",
            str(port),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(100):
                try:
                    async with http.get(f"http://127.0.0.1:{port}/") as response:
                        if response.status == 200:
                            break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.1)
            stop = asyncio.Event()
            memory = asyncio.create_task(sample_memory(server.pid, stop))

            async def arrive(i: int) -> Participant:
                await asyncio.sleep(i * args.arrival)
                return await participant(http, port, codes[ids[i]], args, seed=i)

            results = await asyncio.gather(*(arrive(i) for i in range(n)))
            stop.set()
            mem = await memory
    finally:
        server.terminate()
        server.wait(timeout=30)
    keys = sorted(k for r in results for _, k in r.keys)
    # Keys sent once every participant had the first question: the study in full swing.
    all_in = max((r.ready_at for r in results if r.ready_at is not None), default=0.0)
    steady = sorted(k for r in results for sent, k in r.keys if sent >= all_in)
    starts = sorted(r.start for r in results if r.start is not None)
    firsts = sorted(r.first for r in results if r.first is not None)
    app_rss = sorted(r for r, _ in mem.apps.values())
    app_pss = sorted(p for _, p in mem.apps.values())
    errors = [r.error for r in results if r.error]
    for e in sorted(set(errors)):
        print(f"N={n}: {errors.count(e)} participants: {e}", file=sys.stderr)

    def q(values: list[float], p: float) -> float:
        if not values:
            return float("nan")
        return values[min(len(values) - 1, round(p * (len(values) - 1)))]

    return {
        "n": n,
        "answers": len(keys),
        "failed": len(errors),
        "key_p50": 1000 * q(keys, 0.5),
        "key_p95": 1000 * q(keys, 0.95),
        "key_max": 1000 * (keys[-1] if keys else float("nan")),
        "steady": len(steady),
        "steady_p50": 1000 * q(steady, 0.5),
        "steady_p95": 1000 * q(steady, 0.95),
        "start_p50": q(starts, 0.5),
        "start_p95": q(starts, 0.95),
        "first_p50": q(firsts, 0.5),
        "first_p95": q(firsts, 0.95),
        "apps": len(app_rss),
        "rss_median": statistics.median(app_rss) / 1024 if app_rss else float("nan"),
        "rss_max": app_rss[-1] / 1024 if app_rss else float("nan"),
        "pss_median": statistics.median(app_pss) / 1024 if app_pss else float("nan"),
        "server_rss": mem.server / 1024,
        "prepared_rss": mem.prepared / 1024,
        "pss_total": mem.total_pss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,30,50", help="participant counts, in order")
    parser.add_argument("--beyond", type=int, default=20, help="then add this many until p95 > 1 s")
    parser.add_argument("--max", type=int, default=150, help="never more participants than this")
    parser.add_argument("--answers", type=int, default=20, help="answers per participant")
    parser.add_argument("--every", type=float, default=3.0, help="seconds between answers")
    parser.add_argument("--arrival", type=float, default=0.5, help="seconds between arrivals")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        i = 0
        while i < len(sizes):
            n = sizes[i]
            r = asyncio.run(run(n, args, Path(tmp)))
            print(json.dumps(r), file=sys.stderr)
            rows.append(r)
            if (
                i == len(sizes) - 1
                and args.beyond > 0
                and r["key_p95"] <= 1000
                and n + args.beyond <= args.max
            ):
                sizes.append(n + args.beyond)
            i += 1
    table = markdown(
        (
            "participants",
            "answers timed",
            "failed",
            "key → next p50 ms",
            "p95 ms",
            "max ms",
            "all in: keys, p50 / p95 ms",
            "start p50 / p95 s",
            "code → question 1 p50 / p95 s",
            "participant RSS median / max MB",
            "participant PSS median MB",
            "server / prepared RSS MB",
            "total PSS MB",
        ),
        [
            (
                r["n"],
                r["answers"],
                r["failed"],
                f"{r['key_p50']:.0f}",
                f"{r['key_p95']:.0f}",
                f"{r['key_max']:.0f}",
                f"{r['steady']}, {r['steady_p50']:.0f} / {r['steady_p95']:.0f}",
                f"{r['start_p50']:.2f} / {r['start_p95']:.2f}",
                f"{r['first_p50']:.2f} / {r['first_p95']:.2f}",
                f"{r['rss_median']:.0f} / {r['rss_max']:.0f}",
                f"{r['pss_median']:.0f}",
                f"{r['server_rss']:.0f} / {r['prepared_rss']:.0f}",
                f"{r['pss_total']:.0f}",
            )
            for r in rows
        ],
    )
    over = [r["n"] for r in rows if r["key_p95"] > 1000]
    verdict = (
        f"p95 passes 1 s at {over[0]} participants."
        if over
        else f"p95 stayed under 1 s up to {rows[-1]['n']} participants (the largest run)."
    )
    body = (
        f"{table}\n\n{verdict} Each participant answered every {args.every:g} s "
        f"(±10%), up to {args.answers} answers; one arrived every {args.arrival:g} s. "
        f"Screen {WIDTH}×{HEIGHT}; {os.cpu_count()} CPUs. Goal: 30 participants at "
        "p95 ≤ 250 ms; a participant's process ≤ 120 MB, first question ≤ 1.5 s.\n\n"
        "Reproduce: `.venv/bin/python -m benchmarks.study_load_terminal`.\n"
    )
    write("study_load_terminal", "A study under load (tradeoff serve --study, loopback)", body)


if __name__ == "__main__":
    main()
