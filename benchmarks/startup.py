"""A participant's process before its first question: with and without a study's cache.

Run: ``.venv/bin/python -m benchmarks.startup`` (writes benchmarks/results/startup.md).

For each shipped scenario a study is made in a temporary folder (``tradeoff study create``
builds its cache); then fresh Python processes do what a participant's process does before
the first question (import the app, read the scenario, open a session, warm the tables,
ask the engine for the question), once building everything in memory as before and once
memory-mapping the study's cache. Each is repeated and the medians are reported: wall
times and the process's peak resident memory (``VmHWM``). Painting the screen is measured
by ``benchmarks.tui_latency``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._table import markdown, write
from tradeoff.study.folder import create_study

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ("glaucoma-screening", "breast-cancer-triage", "breast-cancer-triage-real")

PARTICIPANT = """
import json, os, sys, time
t0 = time.perf_counter()
import tradeoff.tui.app  # noqa: F401  (the app a participant's process runs)
from tradeoff.ask.scenario import load_scenario
from tradeoff.study.opening import start_session
from tradeoff.record.recorder import Recorder
from tradeoff.study.folder import load_study
t1 = time.perf_counter()
study = load_study(sys.argv[1])
loaded = load_scenario(study.scenario_path)
cache = study.cache_dir if sys.argv[2] == "cache" else None
rec = start_session(loaded, sys.argv[3], study.sessions_dir, cache_dir=cache)
rec.engine.space.warm()
assert rec.engine.next_query() is not None
t2 = time.perf_counter()
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"scipy", "pandas"})
# VmHWM, not ru_maxrss: the latter keeps the parent's peak across fork and exec.
status = open("/proc/self/status").read()
hwm = int(status.split("VmHWM:")[1].split()[0]) / 1024
cpu = sum(os.times()[:2])
print(json.dumps({"import": t1 - t0, "prepare": t2 - t1, "total": t2 - t0, "cpu": cpu,
                  "rss_mb": hwm, "heavy": heavy}))
"""

SCIPY = """
import time
import numpy  # already loaded by the app
t = time.perf_counter()
import scipy.optimize, scipy.stats
print(time.perf_counter() - t)
"""


def measure(study: Path, mode: str, repeats: int) -> dict[str, float | str]:
    runs = []
    for i in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", PARTICIPANT, str(study), mode, f"p{i + 1:02d}"],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        runs.append(json.loads(out.stdout))
    row: dict[str, float | str] = {
        key: statistics.median(r[key] for r in runs)
        for key in ("import", "prepare", "total", "cpu", "rss_mb")
    }
    row["heavy"] = ", ".join(runs[0]["heavy"]) or "—"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SCENARIOS:
            study_dir = Path(tmp) / name
            create_study(
                ROOT / "scenarios" / f"{name}.toml",
                [f"p{i + 1:02d}" for i in range(2 * args.repeats)],
                study_dir,
            )
            for mode in ("none", "cache"):
                # Distinct participants per mode: each run opens a new session.
                r = measure(study_dir, mode, args.repeats)
                rows.append(
                    (
                        name,
                        "study cache (memory-mapped)" if mode == "cache" else "built in memory",
                        f"{r['import']:.2f}",
                        f"{r['prepare']:.2f}",
                        f"{r['total']:.2f}",
                        f"{r['cpu']:.2f}",
                        f"{r['rss_mb']:.0f}",
                        r["heavy"],
                    )
                )
    body = markdown(
        (
            "scenario",
            "population and tables",
            "import s",
            "open session → first question s",
            "total s",
            "CPU s",
            "peak RSS MB",
            "scipy/pandas loaded",
        ),
        rows,
    )
    scipy = statistics.median(
        float(
            subprocess.run(
                [sys.executable, "-c", SCIPY], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(args.repeats)
    )
    body += (
        f"\n\nMedians of {args.repeats} fresh processes each. Goal: first question within "
        "1.5 s, at most 120 MB. Before this version a participant's process also imported "
        f"scipy.stats and scipy.optimize (for a beta density and a root finder): "
        f"{scipy:.2f} s more on this machine (median of {args.repeats}).\n\n"
        "Reproduce: `.venv/bin/python -m benchmarks.startup`.\n"
    )
    write("startup", "A participant's process before its first question", body)


if __name__ == "__main__":
    main()
