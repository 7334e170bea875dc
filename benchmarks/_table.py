"""Tiny helpers shared by the benchmark scripts: time a call, print and save a table."""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.text import markdown_table

RESULTS = Path(__file__).resolve().parent / "results"


def median_seconds(fn: Callable[[], object], repeats: int = 5) -> float:
    """Median wall time of ``repeats`` calls of ``fn`` (one run, same process)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` by nearest rank (one of the values, no interpolation).

    >>> percentile([3.0, 1.0, 2.0, 4.0], 0.5)
    3.0
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def markdown(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    return markdown_table(headers, rows)


def write(name: str, title: str, body: str, *, save: bool = True) -> Path | None:
    """Print ``body`` and save it as ``benchmarks/results/<name>.md`` with a header; with
    ``save`` false (a benchmark's ``--no-write``), print it alone."""
    if not save:
        print(body)
        return None
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = f"{platform.machine()}, Python {platform.python_version()}"
    head = f"# {title}\n\nMeasured {stamp} on {where}.\n\n"
    path = RESULTS / f"{name}.md"
    path.write_text(head + body + "\n")
    print(head + body)
    return path


def reference_unit(repeats: int = 30) -> float:
    """Median seconds of the numpy reference unit on this machine: one 150×2000 @ 2000×34
    product plus an exp over 2000×150, the engine's two largest kinds of arithmetic. Times
    divided by it compare across CPUs."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.random((150, 2000))
    b = rng.random((2000, 34))
    c = rng.random((2000, 150))

    def unit() -> None:
        a @ b
        np.exp(c)

    unit()
    return median_seconds(unit, repeats)


def cpu_name() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one), and its core count."""
    import os

    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "cpu model", "hardware")):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores"


def importable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as its module's importable name has it (for a script run with ``python -m``,
    whose functions live in ``__main__``), so worker processes pickle it by name."""
    import importlib
    import sys

    if fn.__module__ != "__main__":
        return fn
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    if spec is None:
        return fn
    found: Callable[..., Any] = getattr(importlib.import_module(spec.name), fn.__name__)
    return found
