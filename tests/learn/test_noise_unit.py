"""The unit of the answer model's T and δ: a recall's with classes, a typical aspect's range
without; recorded in a session's header, and a session recorded before it replays with 1."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel

from tradeoff.ask.scenario import load_scenario
from tradeoff.learn.engine import Engine
from tradeoff.learn.likelihood import NOISE_PRIOR
from tradeoff.learn.noise_unit import noise_grid, scenario_noise_unit
from tradeoff.record.log import read_session
from tradeoff.record.recorder import Recorder
from tradeoff.record.records import chained_line, split_chain
from tradeoff.record.replay import replay
from tradeoff.simulation.noise import Noise
from tradeoff.simulation.oracles import SimulatedOracle

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core

TRAINS = SCENARIOS / "train-trips.toml"


@pytest.mark.parametrize(
    "name", ["train-trips", "llm-leaderboard", "breast-cancer-triage", "glaucoma-screening"]
)
def test_the_unit_is_a_recall_with_classes_else_the_typical_range(name: str) -> None:
    sc = load_scenario(SCENARIOS / f"{name}.toml").scenario
    unit = scenario_noise_unit(sc)
    if sc.n_classes:
        assert unit == 1.0
    else:
        typical = statistics.geometric_mean([a.range[1] - a.range[0] for a in sc.attributes])
        assert unit == pytest.approx(typical, rel=5e-3)
        assert unit == float(f"{unit:.3g}")  # three digits: every machine the same


def test_a_grid_in_another_unit_scales_t_and_delta_and_keeps_the_prior() -> None:
    grid = noise_grid(21.0)
    assert grid.lapses == NOISE_PRIOR.lapses
    np.testing.assert_allclose(grid.temperatures, np.array(NOISE_PRIOR.temperatures) * 21)
    np.testing.assert_allclose(grid.bands, np.array(NOISE_PRIOR.bands) * 21)
    np.testing.assert_array_equal(grid.prior_masses(), NOISE_PRIOR.prior_masses())
    unscaled = noise_grid(1.0)
    assert unscaled.temperatures == NOISE_PRIOR.temperatures
    assert unscaled.bands == NOISE_PRIOR.bands


def _answered(path: Path, answers: int) -> Path:
    """A train-trips session answered by a traveller whose choices blur with the options'
    closeness (logistic noise in guilders-and-minutes units, as real travellers' do)."""
    loaded = load_scenario(TRAINS)
    rec = Recorder.start(loaded, "p01", path, candidates=None, seed=3)
    oracle = SimulatedOracle.for_scenario(
        loaded.scenario, [0.5, 0.2, 0.2, 0.1], noise=Noise("logistic", 0.5), seed=4
    )
    for _ in range(answers):
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(oracle.choose(q))
    rec.close()
    return rec.path


def _rewrite_header(session: Path, unit: float | None) -> None:
    """The session as a version that wrote ``unit`` (``None``: no such field) would have."""
    out, chain = [], None
    for text in session.read_text().splitlines():
        data = json.loads(split_chain(text)[0])
        if data["type"] == "header":
            data.pop("noise_unit", None)
            if unit is not None:
                data["noise_unit"] = unit

        class Raw(BaseModel):
            model_config = {"extra": "allow"}

        chain, raw = chained_line(chain, Raw(**data))
        out.append(raw.decode())
    session.write_text("".join(out))


def test_a_session_records_its_unit_and_replays_with_it(tmp_path: Path) -> None:
    session = _answered(tmp_path / "sessions", 8)
    log = read_session(session)
    assert log.header.noise_unit == 21.0
    engine = replay(log)
    assert log.replay_differs == 0
    assert engine.noise_unit == 21.0
    particles = engine.particles()
    assert particles is not None
    assert particles.grid.temperatures[-1] == pytest.approx(0.05 * 21)


def test_a_session_recorded_before_the_unit_replays_with_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked with T and δ in the aspects' own units (what the versions before did, and
    what a header without ``noise_unit`` says): replayed as recorded; read with today's
    unit the same answers would have been asked otherwise."""
    with monkeypatch.context() as m:
        m.setattr("tradeoff.learn.engine.scenario_noise_unit", lambda _: 1.0)
        session = _answered(tmp_path / "sessions", 8)
    _rewrite_header(session, None)
    log = read_session(session)
    assert log.header.noise_unit is None
    assert "noise_unit" not in json.loads(split_chain(session.read_text().splitlines()[0])[0])
    old = replay(log)
    assert log.replay_differs == 0 and old.noise_unit == 1.0
    # The same answers under today's unit: other questions, another posterior.
    _rewrite_header(session, 21.0)
    log = read_session(session)
    new = replay(log)
    assert log.replay_differs > 0
    a, b = old.result().weights, new.result().weights
    assert max(abs(x - y) for x, y in zip(a, b, strict=True)) > 1e-3
    assert not math.isclose(old.noise_unit, new.noise_unit)


def test_an_engine_learns_the_train_trips_in_their_unit() -> None:
    sc = load_scenario(TRAINS).scenario
    engine = Engine(sc, seed=1)
    assert engine.noise_unit == 21.0
    particles = engine.particles()
    assert particles is not None
    assert particles.grid.bands == noise_grid(21.0).bands
