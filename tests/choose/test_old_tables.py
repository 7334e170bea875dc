"""A session recorded before the pool's plausible measurements were drawn the way this
version draws them (its header says ``prior = "fitted"``: the fitted scatter plugged in)
states its stop's P(best) in `select` and the report too: they count over the
tables its header names when the pool is the one it measured, and draw this version's only
for another pool (they drew this version's always, and told an old session's person
another number than its review)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from tradeoff.ask.population import scenario_population
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.choose.recommend import measurement_record
from tradeoff.choose.selection import recommend_each, recorded_tables
from tradeoff.choose.stakeholder import stakeholder_of
from tradeoff.pool import load_pool
from tradeoff.record.log import read_session
from tradeoff.record.recorder import Recorder
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle

from .test_one_number import TRUTH, noisy_scenario

pytestmark = pytest.mark.core


def test_an_old_session_states_its_stops_p_best(tmp_path: Path) -> None:
    path = noisy_scenario(tmp_path, cases=60)
    loaded = load_scenario(path)
    sc = loaded.scenario
    pool = scenario_pool(sc, tmp_path)
    priors = scenario_population(sc).priors.tolist()
    rows = metric_vectors(sc, pool, priors)
    record = measurement_record(sc, pool, priors, rows)
    assert record is not None and record.prior == "scattered"
    old = record.model_copy(update={"prior": "fitted"})  # as a header before this version
    rec = Recorder.start(loaded, "p1", tmp_path / "sessions", candidates=rows, seed=3,
                         measurement=old)  # fmt: skip
    oracle = SimulatedOracle.for_scenario(sc, TRUTH, seed=1)
    for _ in range(4):
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(oracle.choose(q))
    stop = rec.engine.verdict()
    rec.close()
    assert stop is not None
    log = read_session(rec.path)
    person = stakeholder_of(log.header, replay(log), rec.path)
    assert person.measurement == old
    chosen = recommend_each(sc, [person], pool).recommendations[0]
    assert chosen.index == stop.pick
    assert chosen.stated == pytest.approx(stop.stated, rel=0, abs=1e-12)
    # drawn as this version draws them, the same person is told another number
    fresh = recommend_each(sc, [replace(person, measurement=None)], pool).recommendations[0]
    assert fresh.stated is not None and abs(fresh.stated - stop.stated) > 1e-4
    # another pool (one model's numbers changed): this version's tables, not the header's
    frame = pd.read_csv(tmp_path / "pools" / "breast-cancer.csv")
    frame.loc[0, "recall_malignant"] = 0.5
    other = load_pool("other.csv", pool.objectives, frame=frame, name_column="model")
    assert person.posterior is not None
    n = len(person.posterior[0])
    other_rows = metric_vectors(sc, other, priors)
    assert recorded_tables(person, sc, other, other_rows, n) is None
    assert recorded_tables(person, sc, pool, rows, n) is not None
