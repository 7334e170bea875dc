"""Tiny helpers shared by the benchmark scripts: time a call, print and save a table."""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from tradeoff.judge.render import markdown_table

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


def write(name: str, title: str, body: str) -> Path:
    """Print ``body`` and save it as ``benchmarks/results/<name>.md`` with a header."""
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = f"{platform.machine()}, Python {platform.python_version()}"
    head = f"# {title}\n\nMeasured {stamp} on {where}.\n\n"
    path = RESULTS / f"{name}.md"
    path.write_text(head + body + "\n")
    print(head + body)
    return path
