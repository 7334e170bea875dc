"""Commands from start to answer: wall times of fresh processes, with and without the cache.

Run: ``.venv/bin/python -m benchmarks.commands`` (writes benchmarks/results/commands.md);
``--repeats N`` sets the runs per cell (default 5), ``--participants N`` the study's size
(default 100).

In a temporary folder a study of the shipped breast-cancer triage scenario is made for 100
participants (``study create``, which builds the study's own ``cache/``), and each of them
answers until the engine stops, a simulated person with weights drawn from a flat Dirichlet
(seeded). Then every command runs as a person runs it, a fresh ``python -m tradeoff``
process each time, its output thrown away:

* ``tradeoff --help``;
* ``tradeoff session show FILE`` and ``tradeoff select --session FILE`` on the first
  participant's session;
* ``tradeoff scenario check scenarios/breast-cancer-triage.toml``;
* ``tradeoff study status DIR`` on the 100 participants;
* the app's first question: the Textual app (headless, 100×32, as
  :mod:`benchmarks.tui_latency` drives it) opened on the scenario ``tradeoff`` opens,
  "Start" pressed, until the first question is painted; timed from the process's launch.

**Cold**: the user's cache folder (``TRADEOFF_CACHE_DIR``) is a new, empty folder for each
run: the population, the pool's rows and what each session file says are built and
written. **Warm**: one run fills the folder, then the measured runs read it. The study's
own ``cache/`` is there in both (``study create`` made it); the operating system's file
cache is warm in both. Medians over ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks._table import markdown, write

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "breast-cancer-triage.toml"
PARTICIPANTS = 100

#: The app's first question: launched, "Start" pressed, the question painted; prints the
#: wall-clock time (seconds since the epoch) the question was on the screen.
APP = """
import asyncio, sys, tempfile, time
from tradeoff.tui import make_app
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import StartScreen

async def main() -> None:
    with tempfile.TemporaryDirectory() as sessions:
        app = make_app(sys.argv[1], sessions_dir=sessions, participant="bench")
        async with app.run_test(size=(100, 32)) as pilot:
            while not isinstance(app.screen, StartScreen):
                await pilot.pause(0.01)
            await pilot.click("#start")
            while not isinstance(app.screen, QuestionScreen):
                await pilot.pause(0.01)
            await pilot.pause()
            print(time.time(), flush=True)
            app.exit()

asyncio.run(main())
"""


def make_study(folder: Path, participants: int = PARTICIPANTS) -> tuple[Path, Path]:
    """A study of ``participants`` people who all finished; returns the study folder and
    the first participant's session file."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.folder import create_study
    from tradeoff.study.opening import start_session

    ids = [f"p{i:03d}" for i in range(1, participants + 1)]
    study, _ = create_study(SCENARIO, ids, folder / "study")
    loaded = load_scenario(study.scenario_path)
    scenario = loaded.scenario
    rng = np.random.default_rng(0)
    first: Path | None = None
    for i, pid in enumerate(ids):
        truth = tuple(float(w) for w in rng.dirichlet(np.ones(len(scenario.weight_names))))
        rec = start_session(loaded, pid, study.sessions_dir, seed=i, cache_dir=study.cache_dir)
        oracle = SimulatedOracle.for_scenario(scenario, truth, seed=i)
        with rec:
            while (q := rec.engine.next_query()) is not None:
                rec.answer(oracle.choose(q), response_ms=float(rng.uniform(2000, 9000)))
            rec.finish()
        first = first or rec.path
    assert first is not None
    return study.path, first


def run(argv: Sequence[str], cache: Path) -> float:
    """Seconds from launching ``argv`` to its answer: its exit, or for the app the moment
    it printed (the first question painted)."""
    env = {**os.environ, "TRADEOFF_CACHE_DIR": str(cache)}
    start_wall, start = time.time(), time.perf_counter()
    out = subprocess.run([sys.executable, *argv], env=env, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({out.returncode}):\n{out.stderr}")
    if argv[0] == "-c":
        return float(out.stdout.split()[-1]) - start_wall
    return took


def measure(argv: Sequence[str], tmp: Path, name: str, repeats: int) -> tuple[float, float]:
    """Median seconds warm (the cache filled by one run first) and cold (an empty cache
    folder every run)."""
    cold = [run(argv, tmp / f"cold-{name}-{i}") for i in range(repeats)]
    warm_cache = tmp / f"warm-{name}"
    run(argv, warm_cache)  # fills it
    warm = [run(argv, warm_cache) for _ in range(repeats)]
    return statistics.median(warm), statistics.median(cold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per cell (default 5)")
    parser.add_argument(
        "--participants", type=int, default=PARTICIPANTS, help="the study's size (default 100)"
    )
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        made = time.perf_counter()
        study, session = make_study(tmp, args.participants)
        made = time.perf_counter() - made
        commands: list[tuple[str, list[str], float, float]] = [
            ("tradeoff --help", ["-m", "tradeoff", "--help"], 0.3, 0.3),
            (
                "tradeoff session show FILE",
                ["-m", "tradeoff", "session", "show", str(session)],
                1.5,
                3.0,
            ),
            (
                "tradeoff select --session FILE (one session)",
                ["-m", "tradeoff", "select", "--session", str(session)],
                1.5,
                3.0,
            ),
            (
                "tradeoff scenario check scenarios/breast-cancer-triage.toml",
                ["-m", "tradeoff", "scenario", "check", str(SCENARIO)],
                1.5,
                3.0,
            ),
            (
                f"tradeoff study status DIR ({args.participants} participants, all complete)",
                ["-m", "tradeoff", "study", "status", str(study)],
                1.5,
                3.0,
            ),
            (
                "the app: launch → Start → first question painted",
                ["-c", APP, str(SCENARIO)],
                1.5,
                3.0,
            ),
        ]
        rows = []
        for i, (label, argv, warm_goal, cold_goal) in enumerate(commands):
            warm, cold = measure(argv, tmp, str(i), args.repeats)
            met = [
                w for w, ok in (("warm", warm <= warm_goal), ("cold", cold <= cold_goal)) if not ok
            ]
            rows.append(
                (
                    label,
                    f"{warm:.2f}",
                    f"{cold:.2f}",
                    f"≤ {warm_goal:g} / ≤ {cold_goal:g}",
                    "yes" if not met else "no (" + ", ".join(met) + ")",
                )
            )
    load_after = os.getloadavg()[0]
    body = markdown(
        ("command", "warm median s", "cold median s", "goal warm / cold s", "met?"), rows
    )
    body += (
        f"\n\nMedians of {args.repeats} fresh processes per cell (`python -m tradeoff`, the "
        "console script runs the same `main`). Cold: an empty user cache folder "
        "(`TRADEOFF_CACHE_DIR`) per run; warm: the folder filled by one run first. The "
        "study's own `cache/` is there in both; the operating system's file cache is warm "
        f"in both. Making the study and its {args.participants} sessions took {made:.0f} s. "
        f"Load average (1 min) {load_before:.2f} before, {load_after:.2f} after: figures "
        "from a machine shared with other work are upper bounds.\n\n"
        "Reproduce: `.venv/bin/python -m benchmarks.commands --repeats "
        f"{args.repeats} --participants {args.participants}`.\n"
    )
    write("commands", "Commands from start to answer (seconds)", body)


if __name__ == "__main__":
    main()
