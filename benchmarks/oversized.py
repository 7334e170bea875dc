"""Small files that ask for huge work: memory and time of every command given one.

Run: ``.venv/bin/python -m benchmarks.oversized [--no-write]`` (writes
benchmarks/results/oversized.md). Each input is at most 1 MB and is given to the command
that would read it, in a fresh process; the table gives the exit code (2: a located
error), the peak memory of that process (``ru_maxrss`` of the child) and its wall time,
against the limits of no more than 1 GB and 30 s. A process still running at 60 s is
killed and reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._table import markdown, write

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = (ROOT / "scenarios" / "breast-cancer-triage.toml").read_text()


def scenario_with(population: str = "", classes: int = 2) -> str:
    rows = ", ".join(f'{{name = "c{i}", label = "c{i}"}}' for i in range(classes))
    return f'id = "big"\ntitle = "big"\nclasses = [{rows}]\n[population]\nseed = 1\n{population}\n'


def session_with(folder: Path, change: dict[str, object]) -> Path:
    """A recorded session whose header is changed and the chain written again (as someone
    holding the file could)."""
    sys.path.insert(0, str(ROOT / "src"))
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.learn import Choice
    from tradeoff.record.records import chain_hash
    from tradeoff.study.opening import start_session

    rec = start_session(
        load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml"), "p01", folder / "s"
    )
    rec.answer(Choice.LEFT)
    out, previous = [], None
    for number, line in enumerate(rec.path.read_text().splitlines()):
        record = json.loads(line)
        record.pop("chain")
        if number == 0:
            record.update(change)
        content = json.dumps(record)
        previous = chain_hash(previous, content)
        out.append(content[:-1] + f', "chain": "{previous}"}}')
    path = folder / f"edited-{len(list(folder.glob('edited-*')))}.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


def cases(folder: Path) -> list[tuple[str, list[str]]]:
    def file(name: str, text: str) -> str:
        path = folder / name
        path.write_text(text)
        assert path.stat().st_size <= 1_000_000, name
        return str(path)

    dotted = file("dotted.toml", "a" + ".a" * 99_000 + " = 1\n")
    deep = file("deep.toml", "x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    classes = file("classes.toml", scenario_with(classes=20_000))
    population = file("population.toml", scenario_with("samples = 50000000\nfeatures = 1000"))
    study = folder / "study"
    study.mkdir()
    (study / "study.json").write_text("[" * 400_000 + "]" * 400_000)
    wide = session_with(folder, {"candidates": [[0.5] * 100_000]})
    many = session_with(folder, {"candidates": [[0.5, 0.5, -1.0, -1.0]] * 40_000})
    budget = session_with(folder, {"budget": 10**18})
    truths = file("truths.csv", ",".join(["1"] * 200_000) + "\n")
    return [
        ("scenario with a 99,000-part dotted key", ["scenario", "check", dotted]),
        ("scenario nested 50,000 deep", ["scenario", "check", deep]),
        ("scenario with 20,000 classes", ["simulate", classes]),
        ("population of 5·10⁷ samples × 1,000 features", ["simulate", population]),
        ("study.json nested 400,000 deep", ["study", "status", str(study)]),
        ("session header: a candidate row 100,000 wide", ["session", "show", str(wide)]),
        ("session header: 40,000 candidate rows", ["session", "show", str(many)]),
        ("session header: budget 10¹⁸", ["session", "show", str(budget)]),
        (
            "simulate --truths: a row 200,000 wide",
            ["simulate", "breast-cancer-triage", "--truths", truths],
        ),
    ]


def run(argv: list[str]) -> tuple[str, float]:
    """(exit, seconds) of ``tradeoff ARGV`` in a fresh process (a traceback is marked)."""
    start = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tradeoff", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _, err = proc.communicate(timeout=60)
        code = str(proc.returncode) + (" (traceback)" if b"Traceback" in err else "")
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        code = "killed at 60 s"
    return code, time.perf_counter() - start


def main(out: bool) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in cases(Path(tmp)):
            code, seconds = run(argv)
            peak = _peak(argv)  # in a helper whose only child it is: that command's own
            given = next((Path(a).stat().st_size for a in argv if Path(a).is_file()), None)
            if given is None:
                given = sum(f.stat().st_size for f in Path(argv[-1]).glob("*") if f.is_file())
            words = [a for a in argv[:2] if not a.startswith("/")]
            rows.append(
                [
                    label,
                    "tradeoff " + " ".join(words),
                    f"{given / 1e6:.2f}",
                    code,
                    f"{peak:.0f}",
                    f"{seconds:.1f}",
                ]
            )
    body = markdown(["input", "command", "MB given", "exit", "peak MB", "seconds"], rows) + (
        "\n\nExit 2 is a located error naming the file and the field (no traceback). Times "
        "include starting Python and importing tradeoff (1–2 s on this machine); limits: "
        "1 GB and 30 s.\n"
        "Reproduce: `.venv/bin/python -m benchmarks.oversized`.\n"
    )
    if out:
        write("oversized", "Small files that ask for huge work", body)
    else:
        print(body)


def _peak(argv: list[str]) -> float:
    """Peak memory (MB) of ``tradeoff ARGV`` alone: run from a helper process whose only
    child it is, which reports its own RUSAGE_CHILDREN."""
    code = (
        "import os, resource, subprocess, sys;"
        f"subprocess.run([sys.executable, '-m', 'tradeoff', *{argv!r}],"
        "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,"
        f"env=dict(os.environ, PYTHONPATH={str(ROOT / 'src')!r}));"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=90
        )
        return int(done.stdout.strip().splitlines()[-1]) / 1024
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return float("nan")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true")
    main(not parser.parse_args().no_write)
