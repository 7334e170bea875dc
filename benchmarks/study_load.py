"""The study web page under load: N participants answering through ``tradeoff study serve``.

Run: ``.venv/bin/python -m benchmarks.study_load`` (writes benchmarks/results/study_load.md).
``--participants 25 50 100 200 300`` sets the study sizes (one run each), ``--workers`` the
server's processes (default 2, one per core), ``--every`` the seconds between a
participant's answers (default 3), ``--answers`` how many each gives (default 10).

For each N a fresh study of the shipped breast-cancer triage scenario (its pool, the
``joint`` strategy) is made with an information and consent text, and ``tradeoff study
serve`` is started on loopback. N participants arrive over ``--arrival`` seconds, each an
HTTP client with its own cookie jar and one kept-alive connection, as a browser is: the
code page, the code posted (→ the consent page), "I agree" posted (→ question 1), then an
answer every ``--every`` seconds (±10 %). ``--answerer random`` (the default) answers A or B
at random (seeded); ``--answerer person`` as a simulated person would, as in
``benchmarks.engine_step``: true weights drawn from a flat Dirichlet over swing weights,
read against the differences the page shows (its "better: 136 more", "worse: 0.6 ms more"),
one answer in ten (``--slip``) reversed. Random answers contradict each other, a person's
mostly agree; the engine moves its particles after 39 % of the first and 33 % of the
second (``benchmarks.answer_moves``).

Measured at the client, each from the request sent to the next page's last byte (the
303 and the GET it leads to included): **code → consent**, **agree → question 1** and their
sum, **code → question 1** (without the time a person reads the consent);
**submit → next page** over every answer, and over the answers given once every participant
had arrived ("all in"). Memory: the total proportional set size (PSS: shared pages split
between the processes mapping them) of the server's processes, sampled once a second; per
participant = (peak during the run − before the first participant) / N. One run per N on one
machine: figures are one sample each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
import numpy as np

from benchmarks._table import cpu_name, markdown, percentile, reference_unit, write
from tradeoff.threads import one_thread

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "breast-cancer-triage.toml"
#: The goals of a study of 300 on two cores (p95, milliseconds).
SUBMIT_GOAL_MS = 150
FIRST_GOAL_MS = 300
CONSENT = "# About this study\n\nWe ask which of two models you would rather have.\n"


@dataclass
class Person:
    code_to_consent: float | None = None
    agree_to_q1: float | None = None
    submits: list[tuple[float, float]] = field(default_factory=list)  # (sent, seconds)
    error: str = ""


def _field(html: str, name: str, action: str) -> str:
    start = html.index(f'action="{action}"')
    form = html[start : html.index("</form>", start)]
    m = re.search(f'name="{name}" value="([^"]*)"', form)
    assert m is not None
    return m.group(1)


_LINE = re.compile(r'<li class="differs (better|worse)">.*?<span class="delta">\(([^)]*)\)', re.S)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _reading() -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The shipped scenario's weight spans (what ``truth_from_dirichlet`` draws against) and
    what one unit of each line's shown difference is in the weights' terms (a class's
    accuracy is its prevalence times its recall, shown per 1,000 cases)."""
    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.learn.engine import Engine

    scenario = load_scenario(SCENARIO).scenario
    population = scenario_population(scenario)
    spans = Engine(scenario, population=population).space.spans
    scale = tuple(float(p) / 1000.0 for p in population.priors) + (1.0,) * len(scenario.attributes)
    return spans, scale


def persons_choice(html: str, weights: tuple[float, ...], scale: tuple[float, ...]) -> str:
    """ "left" or "right": the option a person with these natural-unit weights prefers,
    from the differences the question page shows for Option A (a line both options share
    is not marked; ``scale`` turns each line's shown difference into the weights' units)."""
    start = html.index('<section class="option"')
    first = html[start : html.index("</section>", start)]
    lines = re.findall(r"<li[^>]*>.*?</li>", first, re.S)
    gain = 0.0
    for i, line in enumerate(lines):
        m = _LINE.search(line)
        if m is None:
            continue
        size = float(_NUMBER.findall(m.group(2))[0].replace(",", "")) * scale[i]
        gain += weights[i] * size * (1.0 if m.group(1) == "better" else -1.0)
    return "left" if gain >= 0 else "right"


async def person(
    base: str,
    code: str,
    args: argparse.Namespace,
    seed: int,
    reading: tuple[tuple[float, ...], tuple[float, ...]],
) -> Person:
    out = Person()
    rng = random.Random(seed)
    weights: tuple[float, ...] = ()
    if args.answerer == "person":
        from tradeoff.learn.engine import truth_from_dirichlet

        weights = truth_from_dirichlet(reading[0], np.random.default_rng([seed, 35]))
    # each participant from an address of its own (all of 127.0.0.0/8 is this machine),
    # as people on their own networks are: the server's limits per source apply to each
    host = 2 + seed
    connector = aiohttp.TCPConnector(
        limit=1, force_close=False, local_addr=(f"127.0.{host // 250}.{host % 250 + 2}", 0)
    )
    timeout = aiohttp.ClientTimeout(total=args.timeout)
    try:
        async with aiohttp.ClientSession(
            connector=connector, cookie_jar=aiohttp.CookieJar(unsafe=True), timeout=timeout
        ) as http:

            async def go(method: str, path: str, data: dict[str, str] | None = None) -> str:
                async with http.request(method, base + path, data=data) as r:
                    text = await r.text()
                    if r.status != 200:
                        raise RuntimeError(f"{method} {path}: {r.status}")
                    return text

            html = await go("GET", "")
            await asyncio.sleep(1.0)  # the code is typed
            sent = time.perf_counter()
            html = await go("POST", "code", {"csrf": _field(html, "csrf", "code"), "code": code})
            out.code_to_consent = time.perf_counter() - sent
            await asyncio.sleep(1.0)  # the consent is read
            sent = time.perf_counter()
            html = await go(
                "POST", "consent", {"csrf": _field(html, "csrf", "consent"), "choice": "agree"}
            )
            out.agree_to_q1 = time.perf_counter() - sent
            for _ in range(args.answers):
                if 'action="answer"' not in html:
                    break
                await asyncio.sleep(args.every * rng.uniform(0.9, 1.1))
                data = {
                    name: _field(html, name, "answer") for name in ("csrf", "answered", "shown")
                }
                if args.answerer == "person":
                    choice = persons_choice(html, weights, reading[1])
                    if rng.random() < args.slip:
                        choice = "right" if choice == "left" else "left"
                    data["choice"] = choice
                else:
                    data["choice"] = rng.choice(("left", "right"))
                sent = time.perf_counter()
                html = await go("POST", "answer", data)
                out.submits.append((sent, time.perf_counter() - sent))
    except (TimeoutError, aiohttp.ClientError, OSError, RuntimeError, AssertionError) as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    return out


def _parents() -> dict[int, int]:
    """Every process: pid → parent pid (read from ``/proc``)."""
    out: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                out[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return out


def _tree(root: int) -> list[int]:
    table = _parents()
    out, frontier = [root], [root]
    while frontier:
        pid = frontier.pop()
        children = [c for c, p in table.items() if p == pid]
        out += children
        frontier += children
    return out


def _pss_kb(pid: int) -> int:
    """A process's proportional set size in kB, or 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            fields = {
                line.split(":")[0]: int(line.split()[1]) for line in fh if line.endswith("kB\n")
            }
        return fields.get("Pss", 0)
    except (OSError, ValueError, IndexError):
        return 0


def _cpu(root: int) -> float:
    """CPU seconds (user and system) used so far by ``root`` and its descendants that
    are still running (read from ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in _tree(root):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            continue
    return total / tick


def _pss(root: int) -> int:
    return sum(_pss_kb(pid) for pid in _tree(root))


async def sample(root: int, stop: asyncio.Event, peak: list[int]) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], _pss(root))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def serve(study_path: Path, workers: int) -> tuple[subprocess.Popen[str], int]:
    """``tradeoff study serve`` in a process of its own, once it answers and its workers
    are up; the process and its port."""
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tradeoff",
            "study",
            "serve",
            str(study_path),
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        await asyncio.sleep(0.2)
    await asyncio.sleep(2.0)  # the workers are up
    return server, port


def scenario_with(strategy: str | None, folder: Path) -> Path:
    """The shipped scenario, or a copy of it (with the files it names) asking with
    ``strategy``."""
    if strategy is None:
        return SCENARIO
    import shutil
    import tomllib

    data = tomllib.loads(SCENARIO.read_text())
    copy = folder / "scenario" / SCENARIO.name
    for rel in (data.get("pool", {}).get("path"), data.get("population", {}).get("path")):
        if isinstance(rel, str):
            (copy.parent / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SCENARIO.parent / rel, copy.parent / rel)
    text = re.sub(r'(?m)^strategy = "[a-z]+"', f'strategy = "{strategy}"', SCENARIO.read_text())
    copy.write_text(text)
    return copy


async def run(n: int, args: argparse.Namespace, folder: Path) -> dict[str, object]:
    from tradeoff.study.folder import create_study

    consent = folder / "consent.md"
    consent.write_text(CONSENT)
    study, codes = create_study(
        scenario_with(args.strategy, folder),
        [f"p{i:04d}" for i in range(n)],
        folder / f"study-{n}",
        consent=consent,
    )
    server, port = await serve(study.path, args.workers)
    try:
        base = f"http://127.0.0.1:{port}/"
        before = _pss(server.pid)
        cpu_server, cpu_clients = _cpu(server.pid), time.process_time()
        stop, peak = asyncio.Event(), [before]
        sampler = asyncio.create_task(sample(server.pid, stop, peak))

        reading = _reading() if args.answerer == "person" else ((), ())

        async def arrive(i: int, code: str) -> Person:
            await asyncio.sleep(args.arrival * i / n)
            return await person(base, code, args, seed=i, reading=reading)

        started = time.perf_counter()
        people = await asyncio.gather(*(arrive(i, c) for i, c in enumerate(codes.values())))
        elapsed = time.perf_counter() - started
        cpu_server = _cpu(server.pid) - cpu_server
        cpu_clients = time.process_time() - cpu_clients
        stop.set()
        await sampler
    finally:
        server.terminate()
        try:
            _, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            _, err = server.communicate()
    rebuilt = sum(int(m) for m in re.findall(r"(\d+) engines rebuilt", err or ""))
    if args.server_log:
        with open(args.server_log, "a", encoding="utf-8") as fh:
            fh.write(f"--- {n} participants\n{err}")
    ok = [p for p in people if not p.error]
    all_in = started + args.arrival + 2.0
    submits = [s for p in ok for _, s in p.submits]
    steady = [s for p in ok for t, s in p.submits if t >= all_in]
    firsts = [
        p.code_to_consent + p.agree_to_q1
        for p in ok
        if p.agree_to_q1 is not None and p.code_to_consent is not None
    ]
    ms = 1000.0
    return {
        "n": n,
        "errors": len(people) - len(ok),
        "first_error": next((p.error for p in people if p.error), "")
        + next(
            (
                f"; server: {line[:300]}"
                for line in (err or "").splitlines()
                if line.startswith("error on")
            ),
            "",
        ),
        "answers": len(submits),
        "rate": len(submits) / max(elapsed, 1e-9),
        "first_p50": statistics.median(firsts) * ms if firsts else float("nan"),
        "first_p95": percentile(firsts, 0.95) * ms if firsts else float("nan"),
        "submit_p50": statistics.median(submits) * ms if submits else float("nan"),
        "submit_p95": percentile(submits, 0.95) * ms if submits else float("nan"),
        "steady_p95": percentile(steady, 0.95) * ms if steady else float("nan"),
        "submit_max": max(submits) * ms if submits else float("nan"),
        "mb_per_person": (peak[0] - before) / 1024 / n,
        "rebuilt": rebuilt,
        "base_mb": before / 1024,
        # CPU per answer given (each participant's code and consent counted in with them).
        "server_cpu_ms": cpu_server / max(len(submits), 1) * ms,
        "clients_cpu_ms": cpu_clients / max(len(submits), 1) * ms,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, nargs="+", default=[25, 50, 100, 200, 300])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", type=float, default=3.0)
    parser.add_argument("--answers", type=int, default=10)
    parser.add_argument("--arrival", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument(
        "--strategy",
        help="ask with this strategy instead of the scenario's (a copy of it is made); "
        "writes study_load-<strategy>.md",
    )
    parser.add_argument(
        "--answerer",
        choices=("random", "person"),
        default="random",
        help="answer at random (default) or as a simulated person with true weights",
    )
    parser.add_argument("--slip", type=float, default=0.1, help="a person's reversed share")
    parser.add_argument("--server-log", metavar="FILE", help="append the server's stderr here")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.participants:
            r = asyncio.run(run(n, args, Path(tmp)))
            print(r, flush=True)
            rows.append(r)
    table = markdown(
        [
            "participants",
            "answers/s",
            "code → q1 p50 / p95 (ms)",
            "submit → next p50 / p95 (ms)",
            "all in p95 (ms)",
            "worst (ms)",
            "MB per participant",
            "engines rebuilt",
            "CPU ms per answer: server / clients",
            "errors",
        ],
        [
            [
                r["n"],
                f"{r['rate']:.1f}",
                f"{r['first_p50']:.0f} / {r['first_p95']:.0f}",
                f"{r['submit_p50']:.0f} / {r['submit_p95']:.0f}",
                f"{r['steady_p95']:.0f}",
                f"{r['submit_max']:.0f}",
                f"{r['mb_per_person']:.2f}",
                r["rebuilt"],
                f"{r['server_cpu_ms']:.1f} / {r['clients_cpu_ms']:.1f}",
                f"{r['errors']}" + (f" ({r['first_error']})" if r["errors"] else ""),
            ]
            for r in rows
        ],
    )
    held = [
        r["n"]
        for r in rows
        if not r["errors"]
        and float(str(r["submit_p95"])) <= SUBMIT_GOAL_MS
        and float(str(r["first_p95"])) <= FIRST_GOAL_MS
    ]
    with one_thread():
        unit = reference_unit()
    body = (
        f"{args.workers} server processes; each participant answers every {args.every:g} s "
        f"(±10 %), {args.answers} answers, arriving over {args.arrival:g} s; the shipped "
        f"breast-cancer triage scenario ({args.strategy or 'its joint'} strategy, its pool), "
        "with a consent page. "
        + (
            "Each participant answers as a simulated person (true weights drawn from a flat "
            f"Dirichlet over swing weights, read against the page's differences; {args.slip:g} "
            "of the answers reversed). "
            if args.answerer == "person"
            else "Each participant answers A or B at random. "
        )
        + "The clients (one Python process) run on the same machine as "
        "the server. CPU ms per answer: the CPU time the server's processes and the "
        "clients' process used while the participants came and answered, over the answers "
        "given (their codes and consents counted in). "
        f"CPU: {cpu_name()}; numpy reference unit {unit * 1e3:.2f} ms (one "
        "150×2000 @ 2000×34 product plus an exp over 2000×150, one thread, timed before the "
        "run): divide a time by it to compare CPUs.\n\n"
        + table
        + f"\n\nLargest study here with p95 submit → next page ≤ {SUBMIT_GOAL_MS} ms and p95 "
        f"code → question 1 ≤ {FIRST_GOAL_MS} ms: "
        + (f"{max(held)} participants" if held else "none of these sizes")
        + ". Server memory before the first "
        f"participant: {rows[0]['base_mb']:.0f} MB (PSS, all processes).\n\n"
        "Reproduce: `.venv/bin/python -m benchmarks.study_load"
        + f" --participants {' '.join(map(str, args.participants))}"
        + f" --workers {args.workers}"
        + (f" --strategy {args.strategy}" if args.strategy else "")
        + (f" --answerer person --slip {args.slip:g}" if args.answerer == "person" else "")
        + "`.\n"
    )
    if not args.no_write:
        name = "study_load" + (f"-{args.strategy}" if args.strategy else "")
        write(name, "The study web page under load (tradeoff study serve, loopback)", body)
    else:
        print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
