"""The app's review screen says "not asked" of a weight no answer informed (no bar, no
number) and puts the settled and the unsettled trade-offs under headings true of each."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Static

from tradeoff.ask.scenario import load_scenario
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session
from tradeoff.tui.screens.review import ReviewScreen

from ..conftest import SCENARIOS


async def test_the_review_says_not_asked(tmp_path: Path) -> None:
    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    spec = loaded.scenario.elicitation.override(budget=3)
    rec = start_session(loaded, "dr-kim", tmp_path, spec=spec, seed=1)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.6, 0.2, 0.1, 0.1))
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        asked = rec.engine.result().asked
        assert asked is not None and not all(asked), "pick a session that leaves one unasked"

        class Review(App[None]):
            def on_mount(self) -> None:
                self.push_screen(ReviewScreen(rec))

        app = Review()
        async with app.run_test(size=(120, 50)) as pilot:
            await pilot.pause()
            rows = [str(w.render()) for w in app.screen.query(".weight-row").results(Static)]
            lines = [str(w.render()) for w in app.screen.query(Static)]
    assert len(rows) == len(asked)
    for row, informed in zip(rows, asked, strict=True):
        if informed:
            assert "%" in row
        else:
            assert row.rstrip().endswith("not asked: your answers did not need it")
            assert "%" not in row and "█" not in row and "░" not in row
    text = "\n".join(lines)
    assert "Not settled by your answers:" not in text  # the heading says it, once
    if any(line.startswith("• ") and "(90% range)" in line for line in lines):
        assert "Not settled by your answers yet:" in lines
