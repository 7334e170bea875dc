"""Key press to the next question fully rendered, in the Textual app (Pilot-driven).

Run: ``.venv/bin/python -m benchmarks.tui_latency`` (writes benchmarks/results/tui_latency.md).
The glaucoma scenario with its 10⁶-sample population, strategy ``probabilistic``, 100
questions answered with alternating keys at 100×32, driven by Textual's Pilot.

* **key → rendered**: from the moment the app handles the key (the answer action starts) to
  the moment the next question has been painted (``call_after_refresh``). It covers writing
  and fsyncing the answer, the engine's next question and the screen update: what a person
  waits for.
* **Pilot round trip**: ``await pilot.press(key); await pilot.pause()`` as seen by the test
  driver, and the same for a key bound to nothing (Pilot's own overhead).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._table import markdown, write
from tradeoff.ask.scenario import SpecOverrides
from tradeoff.tui import make_app
from tradeoff.tui.screens.question import QuestionScreen
from tradeoff.tui.screens.start import StartScreen

ROOT = Path(__file__).resolve().parents[1]


async def measure(n: int = 100) -> tuple[list[float], list[float], list[float]]:
    rendered: list[float] = []
    original = QuestionScreen.action_answer

    def timed(self: QuestionScreen, choice: str) -> None:
        start = time.perf_counter()
        original(self, choice)
        self.call_after_refresh(lambda: rendered.append((time.perf_counter() - start) * 1000))

    QuestionScreen.action_answer = timed  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            app = make_app(
                ROOT / "scenarios" / "glaucoma-screening.toml",
                sessions_dir=tmp,
                participant="bench",
                overrides=SpecOverrides(budget=n + 5),
            )
            pilot_times: list[float] = []
            noop: list[float] = []
            async with app.run_test(size=(100, 32)) as pilot:
                while not isinstance(app.screen, StartScreen):
                    await pilot.pause(0.05)
                await pilot.click("#start")
                while not isinstance(app.screen, QuestionScreen):
                    await pilot.pause(0.05)
                await pilot.pause()
                for _ in range(20):
                    start = time.perf_counter()
                    await pilot.press("x")
                    await pilot.pause()
                    noop.append((time.perf_counter() - start) * 1000)
                for i in range(n):
                    start = time.perf_counter()
                    await pilot.press("a" if i % 2 else "b")
                    await pilot.pause()
                    pilot_times.append((time.perf_counter() - start) * 1000)
    finally:
        QuestionScreen.action_answer = original  # type: ignore[method-assign]
    return rendered, pilot_times, noop


def stats(values: list[float]) -> tuple[str, str, str]:
    return (
        f"{statistics.median(values):.1f}",
        f"{float(np.quantile(values, 0.95)):.1f}",
        f"{max(values):.1f}",
    )


def main() -> None:
    rendered, pilot_times, noop = asyncio.run(measure())
    rows = [
        ("key → next question rendered (100 questions)", *stats(rendered), "≤ 50 / ≤ 100"),
        ("Pilot round trip, answer key", *stats(pilot_times), "—"),
        ("Pilot round trip, key bound to nothing (20)", *stats(noop), "—"),
    ]
    write(
        "tui_latency",
        "App latency (ms)",
        markdown(("measure", "median", "p95", "max", "target median / p95"), rows),
    )


if __name__ == "__main__":
    main()
