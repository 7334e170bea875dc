"""An attacker guessing access codes while a study's participants enter theirs.

Run: ``.venv/bin/python -m benchmarks.attack`` (writes benchmarks/results/attack.md; a
quick check: ``--participants 3 --wrong 60 --no-write``).

A fresh study of the breast-cancer triage scenario is served by ``tradeoff serve --study``
on loopback. The attacker connects from one address (127.0.0.66) with as many apps as the
server lets one source open (``--connections``, the per-source cap by default) and sends
``--wrong`` wrong codes in all, one every ``--every`` seconds per app, without waiting for
answers (Enter while a code is being checked is ignored by the app, so only the codes the
app took count as attempts: the study's ``attempts.log``, which names each one's source).
Two seconds into the attack the participants arrive, each from their own address
(127.0.1.i), one every ``--arrival`` seconds, and type their own code. Measured at the
participant's end of the websocket: Enter pressed → question 1 drawn. The goal (a scripted
attacker must not delay a participant): every participant reaches question 1 within 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from benchmarks._table import markdown, write
from benchmarks.study_load_terminal import HEIGHT, START_MARK, WIDTH, Screen
from tradeoff.study.attempts import ATTEMPTS_FILE
from tradeoff.study.folder import create_study
from tradeoff.tui.guard import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "breast-cancer-triage.toml"
ATTACKER = "127.0.0.66"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _connect(
    address: str, port: int
) -> tuple[aiohttp.ClientSession, aiohttp.ClientWebSocketResponse, Screen, asyncio.Task[None]]:
    """A websocket from local ``address``, as the page opens it; its screen and reader."""
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))
    url = f"ws://127.0.0.1:{port}/ws?width={WIDTH}&height={HEIGHT}"
    ws = await http.ws_connect(url, headers={"Origin": f"http://127.0.0.1:{port}"})
    screen = Screen()

    async def read() -> None:
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                screen.feed(msg.data)
            elif msg.type != aiohttp.WSMsgType.TEXT:
                break

    return http, ws, screen, asyncio.create_task(read())


async def attacker_app(
    port: int, budget: list[int], every: float, stop: asyncio.Event, timeout: float
) -> str | None:
    """One of the attacker's apps: wrong codes until the budget is spent."""
    try:
        http, ws, screen, reader = await _connect(ATTACKER, port)
    except (aiohttp.ClientError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    try:
        await screen.wait_for((START_MARK,), 0, timeout)
        n = 0
        while budget[0] > 0 and not stop.is_set() and not ws.closed:
            budget[0] -= 1
            n += 1
            await ws.send_str(json.dumps(["stdin", f"ZZZZ-ZZZZ-ZZZZ-{n % 10000:04d}\r"]))
            await asyncio.sleep(every)
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        reader.cancel()
        await ws.close()
        await http.close()
    return None


async def participant(i: int, port: int, code: str, timeout: float) -> float | str:
    """Enter → question 1, in seconds (or what went wrong)."""
    try:
        http, ws, screen, reader = await _connect(f"127.0.1.{i + 1}", port)
    except (aiohttp.ClientError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    try:
        await screen.wait_for((START_MARK,), 0, timeout)
        await asyncio.sleep(0.3)
        mark = len(screen.text)
        sent = time.perf_counter()
        await ws.send_str(json.dumps(["stdin", code + "\r"]))
        await screen.wait_for(("question 1 ·",), mark, timeout)
        took = time.perf_counter() - sent
        await ws.send_str(json.dumps(["stdin", "q"]))
        await asyncio.sleep(0.3)
        return took
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        reader.cancel()
        await ws.close()
        await http.close()


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, object]:
    ids = [f"p{i + 1:03d}" for i in range(args.participants)]
    study, codes = create_study(Path(args.scenario), ids, tmp / "study")
    port = _free_port()
    server_log = (tmp / "server.log").open("wb")
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "tradeoff", "serve", "--study", str(study.path)),
            *("--port", str(port)),
        ],
        cwd=ROOT,
        stdout=server_log,
        stderr=subprocess.STDOUT,
    )
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(300):
                try:
                    async with http.get(f"http://127.0.0.1:{port}/") as response:
                        if response.status == 200:
                            break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.1)
        stop = asyncio.Event()
        budget = [args.wrong]
        began = time.perf_counter()
        attack = [
            asyncio.create_task(attacker_app(port, budget, args.every, stop, args.timeout))
            for _ in range(args.connections)
        ]
        await asyncio.sleep(2.0)

        async def arrive(i: int) -> float | str:
            await asyncio.sleep(i * args.arrival)
            return await participant(i, port, codes[ids[i]], args.timeout)

        results = await asyncio.gather(*(arrive(i) for i in range(args.participants)))
        while budget[0] > 0 and time.perf_counter() - began < args.attack_seconds:
            await asyncio.sleep(0.5)
        stop.set()
        attack_errors = [e for e in await asyncio.gather(*attack) if e]
        duration = time.perf_counter() - began
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            print("the server did not stop in 30 s; its output:", file=sys.stderr)
            print((tmp / "server.log").read_text(errors="replace")[-3000:], file=sys.stderr)
            raise
    log = study.path / ATTEMPTS_FILE
    lines = log.read_text().splitlines() if log.is_file() else []
    refused = [line for line in lines if line.endswith(" " + ATTACKER)]
    others = len(lines) - len(refused)
    times = sorted(r for r in results if isinstance(r, float))
    errors = [r for r in results if isinstance(r, str)] + attack_errors
    for e in sorted(set(errors)):
        print(f"{errors.count(e)} × {e}", file=sys.stderr)
    return {
        "participants": args.participants,
        "reached": len(times),
        "worst": max(times) if times else float("nan"),
        "median": times[len(times) // 2] if times else float("nan"),
        "within_2s": sum(t <= 2.0 for t in times),
        "sent": args.wrong - budget[0],
        "checked": len(refused),
        "refused_participants": others,
        "attack_seconds": duration,
        "errors": len(errors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=30)
    parser.add_argument("--wrong", type=int, default=1000, help="wrong codes the attacker sends")
    parser.add_argument(
        "--connections", type=int, default=DEFAULT_LIMITS.per_source,
        help="the attacker's apps (default: as many as one source may open)",
    )
    parser.add_argument("--every", type=float, default=0.2, help="seconds between codes per app")
    parser.add_argument("--arrival", type=float, default=0.5, help="seconds between arrivals")
    parser.add_argument("--attack-seconds", type=float, default=60.0, help="longest attack")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--scenario", default=str(SCENARIO))
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(run(args, Path(tmp)))
    print(json.dumps(r), file=sys.stderr)
    table = markdown(
        (
            "participants",
            "reached question 1",
            "within 2 s",
            "code → question 1 median / worst s",
            "wrong codes sent",
            "wrong codes checked",
            "participants' codes refused",
            "attack s",
        ),
        [
            (
                r["participants"],
                r["reached"],
                r["within_2s"],
                f"{r['median']:.2f} / {r['worst']:.2f}",
                r["sent"],
                r["checked"],
                r["refused_participants"],
                f"{r['attack_seconds']:.0f}",
            )
        ],
    )
    ok = r["within_2s"] == r["participants"]
    body = (
        f"{table}\n\n{'Every' if ok else 'Not every'} participant reached question 1 "
        f"within 2 s while one address ({ATTACKER}, {args.connections} apps) sent wrong "
        f"codes; {os.cpu_count()} CPUs.\n\n"
        f"Reproduce: `.venv/bin/python -m benchmarks.attack --participants {args.participants} "
        f"--wrong {args.wrong}`.\n"
    )
    if args.no_write:
        print(body)
    else:
        write("attack", "An attacker guessing codes while participants enter theirs", body)


if __name__ == "__main__":
    main()
