"""A session that starts from a study's population prior: the prior named by its hash in
the header, stored once beside the sessions, read again by every replay (exactly the same
answers, questions and result), and a missing or altered prior file refused by name."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError
from tradeoff.learn import Engine
from tradeoff.learn.corroboration import AGREEING_ANSWERS, STUDY_AGREEING_ANSWERS
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.record.log import read_session
from tradeoff.record.prior_files import prior_path
from tradeoff.record.records import Header, HeaderRecord
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

from ..conftest import small_scenario_file, spec

pytestmark = [pytest.mark.core, pytest.mark.other_path]

TRUTH = [0.5, 0.2, 0.2, 0.1]


def prior_for(n: int) -> StartingPrior:
    rng = np.random.default_rng(3)
    return StartingPrior.of(rng.dirichlet([8.0] + [2.0] * (n - 1), size=60), 0.2, ("a", "b"))


def recorded(tmp_path: Path, answers: int = 5) -> tuple[Path, StartingPrior, list[float]]:
    loaded = load_scenario(small_scenario_file(tmp_path))
    sc = loaded.scenario
    prior = prior_for(len(sc.weight_names))
    rec = start_session(
        loaded,
        "p1",
        tmp_path / "sessions",
        spec=spec(sc, strategy="joint", budget=20),
        start=prior,
    )
    oracle = SimulatedOracle.for_scenario(sc, TRUTH)
    for _ in range(answers):
        q = rec.engine.next_query()
        assert q is not None
        rec.answer(oracle.choose(q))
    weights = list(rec.engine.result().weights)
    rec.close()
    return rec.path, prior, weights


def test_the_header_names_the_prior_and_replay_starts_from_it(tmp_path: Path) -> None:
    path, prior, weights = recorded(tmp_path)
    log = read_session(path)
    assert log.header.population_prior is not None
    assert log.header.population_prior.sha256 == prior.sha256
    assert log.header.population_prior.sessions == 2
    stored = prior_path(path, prior.sha256)
    assert stored == tmp_path / "priors" / f"{prior.sha256}.json"
    assert stored.read_bytes() == prior.to_bytes()
    engine = replay(log)
    assert log.replay_differs == 0  # every question as this version asks it
    assert list(engine.result().weights) == pytest.approx(weights, abs=1e-9)
    assert engine.start is not None and engine.start.sha256 == prior.sha256


def test_the_prior_moves_where_the_engine_starts(tmp_path: Path) -> None:
    sc = load_scenario(small_scenario_file(tmp_path)).scenario
    s = spec(sc, strategy="joint", budget=20)
    prior = prior_for(len(sc.weight_names))
    own = Engine(sc, s).result().swing_weights
    pooled = Engine(sc, s, start=prior).result().swing_weights
    assert own is not None and pooled is not None
    # The pooled draws put most weight on the first aspect; the engine's own prior does not.
    assert pooled[0] > own[0] + 0.1


def test_replay_refuses_an_altered_prior_file(tmp_path: Path) -> None:
    path, prior, _ = recorded(tmp_path, 2)
    stored = prior_path(path, prior.sha256)
    os.chmod(stored, 0o600)
    stored.write_bytes(stored.read_bytes().replace(b'"base_share":0.2', b'"base_share":0.3'))
    with pytest.raises(InputError) as err:
        replay(read_session(path))
    text = str(err.value)
    assert str(path) in text and "population_prior" in text and "changed" in text


def test_replay_refuses_a_missing_prior_file(tmp_path: Path) -> None:
    path, prior, _ = recorded(tmp_path, 2)
    prior_path(path, prior.sha256).unlink()
    with pytest.raises(InputError) as err:
        replay(read_session(path))
    assert "population_prior" in str(err.value) and prior.sha256 + ".json" in str(err.value)


def test_the_stored_prior_reads_back_as_the_same_density() -> None:
    prior = prior_for(4)
    again = StartingPrior.from_bytes(prior.to_bytes())
    assert again.to_bytes() == prior.to_bytes() and again.sha256 == prior.sha256
    assert np.array_equal(again.covariances, prior.covariances)
    cols = np.random.default_rng(0).dirichlet([1.0] * 4, size=50).T
    base = np.zeros(50)
    assert again.log_density(cols, base) == pytest.approx(prior.log_density(cols, base))


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("format", 1, "'format' must be 2"),
        ("shares", [0.5], "'shares' must sum to 1"),
        ("shares", [-1.0], "'shares' must be finite and positive"),
        ("means", [[0.0, 1.0], [1.0, 0.0]], "'means' must hold one row per share"),
        ("means", [[0.0, "x"]], "'means' must be 2-deep lists"),
        ("covariances", [[[1.0, 2.0], [0.0, 1.0]]], "'covariances'"),
        ("covariances", [[[1.0, 0.0], [0.0, -1.0]]], "'covariances' must be positive definite"),
        ("base_share", 1.0, "'base_share'"),
    ],
)
def test_a_stored_prior_that_is_wrong_is_refused_by_field(
    field: str, value: object, says: str
) -> None:
    data = {
        "format": 2,
        "base_share": 0.2,
        "sessions": [],
        "shares": [1.0],
        "means": [[0.0, 1.0]],
        "covariances": [[[1.0, 0.0], [0.0, 1.0]]],
    }
    assert StartingPrior.from_bytes(json.dumps(data).encode()).components == 1
    data[field] = value
    with pytest.raises(ValueError, match=says):
        StartingPrior.from_bytes(json.dumps(data).encode())


def test_the_header_records_the_stop_rule_and_an_older_header_replays_with_the_old_one(
    tmp_path: Path,
) -> None:
    path, _, _ = recorded(tmp_path, 3)
    log = read_session(path)
    assert log.header.population_prior is not None
    assert log.header.population_prior.agreeing == STUDY_AGREEING_ANSWERS == 1
    assert replay(log).study_agreeing == 1
    # A session recorded before the rule: its header has no "agreeing"; it replays asking
    # two agreeing answers on every aspect, as it was asked.
    raw = log.header.model_dump(mode="json")
    del raw["population_prior"]["agreeing"]
    older = HeaderRecord.model_validate(raw)
    assert older.population_prior is not None and older.population_prior.agreeing == 2
    log.header = Header.of(older, log.header.scenario)
    engine = replay(log)
    assert engine.study_agreeing == AGREEING_ANSWERS == 2
    assert isinstance(engine._strategy, JointStrategy)
    assert engine._strategy.study_agreeing == 2
