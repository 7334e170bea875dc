"""The study web page while slow clients try to stall it: participants' answers beside
connections that dribble their body, send nothing, or send their headers a byte at a time.

Run: ``.venv/bin/python -m benchmarks.slow_clients`` (writes
benchmarks/results/slow_clients.md). ``--slow 600`` slow connections from ``--addresses
10`` loopback addresses (127.0.1.1, 127.0.1.2, …; all of 127.0.0.0/8 is this machine), a
third of each kind: a POST announcing ``Content-Length: 200`` that sends its body a byte a
second, a connection that sends nothing, and a request whose headers come a byte a second.
A slow connection the server closes is opened again at once, for ``--seconds``. Beside
them ``--participants`` simulated participants (each from an address of its own, one
kept-alive connection, as :mod:`benchmarks.study_load` has them) enter their code, agree,
and answer every ``--every`` seconds until the time is up.

Reported: the participants' submit → next page latency (p50, p95, worst; the 303 and the
GET it leads to included, measured at the client), code → first question (p95), how many
participants were refused (any answer other than the page, or no answer in time), and how
many slow connections the server closed. The goal: with 600 slow connections from 10
addresses, p95 ≤ 500 ms and no participant refused. One run on one machine: one sample.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks._table import markdown, write
from benchmarks.study_load import CONSENT, Person, pct, person, scenario_with, serve

KINDS = ("body", "idle", "headers")
GOAL_P95_MS = 500.0


@dataclass
class Pressure:
    """What the slow connections did: opened, and closed by the server."""

    opened: int = 0
    closed_by_server: int = 0
    refused_connect: int = 0


async def slow_client(port: int, kind: str, address: str, until: float, pressure: Pressure) -> None:
    """One slow connection of ``kind`` from ``address``, opened again whenever the server
    closes it, until ``until`` (the loop's clock)."""
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(address, 0)
            )
        except OSError:
            pressure.refused_connect += 1
            await asyncio.sleep(0.5)
            continue
        pressure.opened += 1
        try:
            if kind == "body":
                writer.write(
                    b"POST /code HTTP/1.1\r\nHost: study\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 200\r\n\r\ncsrf=abcd"
                )
            elif kind == "headers":
                writer.write(b"GET / HTTP/1.1\r\nHost: study\r\nX-Slow: ")
            while loop.time() < until:
                if kind != "idle":
                    writer.write(b"a")
                    await writer.drain()
                try:
                    data = await asyncio.wait_for(reader.read(4096), 1.0)
                except TimeoutError:
                    continue
                if not data:  # the server closed it
                    pressure.closed_by_server += 1
                    break
        except (ConnectionError, OSError):
            pressure.closed_by_server += 1
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()


def _raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


async def run(args: argparse.Namespace, folder: Path) -> dict[str, object]:
    from tradeoff.study.folder import create_study

    consent = folder / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(
        scenario_with(args.strategy, folder),
        [f"p{i:04d}" for i in range(args.participants)],
        folder / "study",
        consent=consent,
    )
    server, port = await serve(study.path, args.workers)
    pressure = Pressure()
    try:
        loop = asyncio.get_running_loop()
        until = loop.time() + args.seconds + 4.0
        slow = [
            asyncio.create_task(
                slow_client(
                    port,
                    KINDS[i % len(KINDS)],
                    f"127.0.1.{i % args.addresses + 1}",
                    until,
                    pressure,
                )
            )
            for i in range(args.slow)
        ]
        await asyncio.sleep(2.0)  # the slow connections are in place
        base = f"http://127.0.0.1:{port}/"
        args.answers = max(1, int(args.seconds / args.every))

        async def arrive(i: int, code: str) -> Person:
            await asyncio.sleep(2.0 * i / max(1, args.participants))
            return await person(base, code, args, seed=i)

        people = await asyncio.gather(*(arrive(i, c) for i, c in enumerate(codes.values())))
        for task in slow:
            task.cancel()
        await asyncio.gather(*slow, return_exceptions=True)
    finally:
        server.terminate()
        try:
            _, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            _, err = server.communicate()
    submits = [s for p in people for _, s in p.submits]
    firsts = [
        p.code_to_consent + p.agree_to_q1
        for p in people
        if p.code_to_consent is not None and p.agree_to_q1 is not None
    ]
    ms = 1000.0
    nan = float("nan")
    return {
        "refused": sum(1 for p in people if p.error),
        "first_error": next((p.error for p in people if p.error), ""),
        "answers": len(submits),
        "submit_p50": statistics.median(submits) * ms if submits else nan,
        "submit_p95": pct(submits, 0.95) * ms if submits else nan,
        "submit_max": max(submits) * ms if submits else nan,
        "first_p95": pct(firsts, 0.95) * ms if firsts else nan,
        "pressure": pressure,
        "log_lines": len([line for line in (err or "").splitlines() if line.strip()]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=600, help="slow connections (default 600)")
    parser.add_argument("--addresses", type=int, default=10, help="their addresses (1-250)")
    parser.add_argument("--participants", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the run lasts")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between answers")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30.0, help="a participant's wait")
    parser.add_argument(
        "--strategy",
        nargs="+",
        default=["joint", "bisection"],
        help="the scenario's strategies, one run each (default joint, the shipped one, and "
        "bisection)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if not 1 <= args.addresses <= 250:
        parser.error("--addresses needs a number from 1 to 250")
    _raise_open_files()
    rows, all_met = [], True
    for strategy in args.strategy:
        one = argparse.Namespace(**{**vars(args), "strategy": strategy})
        with tempfile.TemporaryDirectory() as tmp:
            r = asyncio.run(run(one, Path(tmp)))
        pressure = r["pressure"]
        assert isinstance(pressure, Pressure)
        p95 = float(str(r["submit_p95"]))
        all_met = all_met and r["refused"] == 0 and p95 <= GOAL_P95_MS
        rows.append(
            [
                strategy,
                f"{args.slow} ({args.addresses})",
                args.participants,
                r["answers"],
                f"{r['submit_p50']:.0f} / {p95:.0f} / {r['submit_max']:.0f}",
                f"{r['first_p95']:.0f}",
                f"{r['refused']}" + (f" ({r['first_error']})" if r["refused"] else ""),
                f"{pressure.opened} / {pressure.closed_by_server}",
                r["log_lines"],
            ]
        )
    table = markdown(
        [
            "strategy",
            "slow connections (addresses)",
            "participants",
            "answers",
            "submit → next p50 / p95 / worst (ms)",
            "code → q1 p95 (ms)",
            "refused",
            "slow opened / closed by server",
            "server log lines",
        ],
        rows,
    )
    body = (
        f"{args.workers} server processes (`tradeoff study serve`, its default timeouts); "
        f"{args.slow} slow connections from {args.addresses} addresses, a third each "
        "dribbling a body, idle, or dribbling headers, each opened again when closed; "
        f"{args.participants} participants answering every {args.every:g} s for "
        f"{args.seconds:g} s (the shipped breast-cancer triage scenario, one run per "
        "strategy, with a consent page). Clients and server on one machine.\n\n"
        + table
        + f"\n\nGoal (p95 ≤ {GOAL_P95_MS:.0f} ms, none refused): "
        + ("met" if all_met else "not met")
        + ".\n\nReproduce: `.venv/bin/python -m benchmarks.slow_clients"
        f" --slow {args.slow} --addresses {args.addresses}"
        f" --participants {args.participants} --seconds {args.seconds:g}"
        f" --strategy {' '.join(args.strategy)}`"
    )
    if args.no_write:
        print(body)
    else:
        write("slow_clients", "Slow clients beside participants", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
