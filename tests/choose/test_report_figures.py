"""The report's weights figure for many stakeholders: one dot a person, laid out on the page."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.decide import decide
from tradeoff.choose.report import write_report
from tradeoff.choose.report_figures import MANY, weights_figure
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def _team(folder: Path, people: int) -> list[Path]:
    """``people`` short sessions (three answers each) of people with different weights."""
    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    spec = loaded.scenario.elicitation.override(budget=3)
    paths = []
    for k in range(people):
        truth = np.random.default_rng([k, 5]).dirichlet(np.ones(4)) / np.array(
            [0.37, 0.63, 1.0, 1.0]
        )
        rec = start_session(loaded, f"p{k:02d}", folder, spec=spec, seed=k)
        oracle = SimulatedOracle.for_scenario(loaded.scenario, truth)
        with rec:
            while (q := rec.engine.next_query()) is not None:
                rec.answer(oracle.choose(q))
        paths.append(rec.path)
    return paths


def test_many_stakeholders_are_drawn_one_dot_each_and_fit_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from matplotlib.axes import Axes

    people = MANY + 4
    decision = decide(_team(tmp_path / "sessions", people))
    assert len(decision.selection.stakeholders) == people
    dots: list[int] = []
    real_scatter = Axes.scatter

    def scatter(self: Axes, x: Any, y: Any, *a: Any, **kw: Any) -> Any:
        dots.append(len(np.atleast_1d(y)))
        return real_scatter(self, x, y, *a, **kw)

    monkeypatch.setattr(Axes, "scatter", scatter)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Tight layout not applied" was a warning
        caption = weights_figure(decision.selection, tmp_path / "weights.png")
    assert "one dot a person" in caption
    # ω has every person's dot for every aspect; the weights one for each informed aspect
    aspects = len(decision.selection.picks[0].weights)
    asked = sum(sum(bool(a) for a in (s.asked or ())) for s in decision.selection.stakeholders)
    assert sum(dots) == people * aspects + asked
    assert max(dots) == people
    assert (tmp_path / "weights.png").stat().st_size > 0


def test_a_study_sized_report_writes_without_a_layout_warning(tmp_path: Path) -> None:
    decision = decide(_team(tmp_path / "sessions", MANY + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        _, md = write_report(decision, tmp_path / "report", argv=["report"])
    assert "one dot a person" in md.read_text()
