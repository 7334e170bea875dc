"""Ranking details' decision curves (``c``), driven by Pilot: for the shipped two-class
scenario the view draws the recommended model, the runner-up and up to three others with
treat all, treat none and each person's threshold interval, and says in one line which
model is best at the threshold; for options described by their aspects alone or for three
classes there is no such view and no such key."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from tradeoff.ask.scenario import SpecOverrides, load_scenario
from tradeoff.curves import fixed_net_benefit
from tradeoff.tui import make_app
from tradeoff.tui.curves import DecisionCurvesScreen, curve_view
from tradeoff.tui.screens.review import ReviewScreen
from tradeoff.tui.select import SelectionScreen
from tradeoff.tui.select_app import SelectionApp

from ..conftest import ROOT, SCENARIOS
from .test_tui import confirmed, example_selection, start, wait_for

pytestmark = pytest.mark.e2e

__all__ = ["example_selection"]  # the fixture, shared with test_tui


async def footer_keys(pilot: Any, timeout: float = 20.0) -> str:
    """What the footer shows, once it shows anything: the footer fills in its keys after
    the screen is mounted, later on a busy machine, and an empty footer would let a test
    that says a key is absent pass without looking."""
    from textual.widgets._footer import FooterKey

    for _ in range(int(timeout / 0.05)):
        shown = " ".join(str(k.description) for k in pilot.app.screen.query(FooterKey))
        if shown:
            return shown
        await pilot.pause(0.05)
    raise AssertionError(f"the footer of {pilot.app.screen} showed no key in {timeout} s")


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_the_curves_show_the_models_and_say_which_is_best_at_the_threshold(
    example_selection: Any, size: tuple[int, int]
) -> None:
    view = curve_view(example_selection)
    assert view is not None
    pool = example_selection.pool
    names = [c.name for c in view.models]
    assert 2 <= len(names) <= 5 and len(set(names)) == len(names)
    assert [c.role for c in view.models[:2]] == ["recommended", "runner-up"]
    assert names[0] == example_selection.consensus_name  # what the result screen recommends
    pi = float(example_selection.stakeholders[0].priors[0])
    for who, t in view.people:  # the caption's model is the best of the whole pool there
        nb = [float(fixed_net_benefit(r[0], r[1], pi, [t.value])[0]) for r in pool.values]
        best = pool.names[max(range(pool.n), key=nb.__getitem__)]
        assert best in names
        pct = f"{t.value:.0%}"
        assert re.search(rf"{who}'s,? (threshold of )?{pct} \(\d+%–\d+%\),? {best}\b", view.caption)
    app = SelectionApp(example_selection)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        assert isinstance(app.screen, SelectionScreen)
        assert "Decision curves" in await footer_keys(pilot)
        await pilot.press("c")
        await wait_for(pilot, DecisionCurvesScreen)
        await pilot.pause(0.3)
        screen = app.screen
        assert str(screen.query_one("#curves-caption").render()) == view.caption
        legend = str(screen.query_one("#curves-legend").render())
        for name in names:
            assert name in legend
        assert "treat all" in legend and "treat none" in legend and "90% interval" in legend
        # laid out entry by entry: "o" ended a line and its "logreg-C0.1" began the next
        shown = screen.query_one("#curves-legend")
        rows = legend.split("\n")
        assert all(len(row) <= shown.content_size.width for row in rows), rows
        for row in rows:
            assert re.fullmatch(r"(\S \S.*?)(  \S \S.*?)*", row), row  # marker, then words
        lines = screen.query_one("#curves-plot").render().plain.splitlines()
        assert len(lines) >= 10
        canvas = "".join(line.split("┤")[-1] for line in lines if "┤" in line or "│" in line)
        for marker in ("●", "+", "-", "─"):  # recommended, runner-up, treat all, treat none
            assert marker in canvas
        xs = next(lines[i + 1] for i, line in enumerate(lines) if "└" in line).split()
        assert xs[0] == "0%" and all(s.endswith("%") for s in xs)
        numbers = [float(s[:-1]) for s in xs]
        assert numbers == sorted(set(numbers))  # round ticks, increasing
        await pilot.press("q")
        await wait_for(pilot, SelectionScreen)


async def test_three_classes_have_no_curves(example_selection: Any) -> None:
    k3 = load_scenario(ROOT / "scenarios" / "paper-k3-cost-two-rewards.toml").scenario
    selection = dataclasses.replace(example_selection, scenario=k3)
    assert curve_view(selection) is None
    app = SelectionApp(selection)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        assert "Decision curves" not in await footer_keys(pilot)
        await pilot.press("c")
        await pilot.pause(0.2)
        assert isinstance(app.screen, SelectionScreen)


async def test_options_by_their_aspects_alone_have_no_curves(tmp_path: Path) -> None:
    app = make_app(
        SCENARIOS / "llm-leaderboard.toml",
        sessions_dir=tmp_path / "sessions",
        participant="ana",
        overrides=SpecOverrides(budget=6),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await start(pilot)
        for key in "abab" * 3:
            if isinstance(app.screen, ReviewScreen):
                break
            await pilot.press(key)
        await wait_for(pilot, ReviewScreen)
        await confirmed(pilot)
        await pilot.press("e")
        await wait_for(pilot, SelectionScreen)
        await pilot.pause(0.3)
        assert app.screen.curves is None
        assert "Decision curves" not in await footer_keys(pilot)
        await pilot.press("c")
        await pilot.pause(0.2)
        assert isinstance(app.screen, SelectionScreen)


def test_the_recommended_curve_is_the_persons_pick_not_the_lists_first_row(
    example_selection: Any,
) -> None:
    for k, rec in enumerate(example_selection.recommendations):
        one = dataclasses.replace(
            example_selection,
            stakeholders=[example_selection.stakeholders[k]],
            recommendations=[rec],
        )
        view = curve_view(one)
        assert view is not None
        assert view.models[0].name == rec.name
        if rec.runner_up is not None:
            assert view.models[1].name == rec.runner_up
        # A pick the list (ordered by the asked aspects only) does not put first is still the
        # curve called recommended, as on the result screen.
        last = example_selection.pool.n - 1
        moved = dataclasses.replace(
            rec, name=example_selection.pool.names[last], index=last, runner_up=None
        )
        view = curve_view(dataclasses.replace(one, recommendations=[moved]))
        assert view is not None
        assert view.models[0].name == moved.name
        assert view.models[1].name != moved.name
