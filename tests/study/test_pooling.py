"""A study that learns across its participants: the coordinator's switch, the cadence of
pooling and the prior later sessions start from (sessions answered by simulated people:
the e2e tier)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.record.replay import replay
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.erase import erase
from tradeoff.study.folder import create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.study.pooling import (
    POOLING_FILE,
    Pooling,
    current_prior,
    read_pooling,
    refresh_prior,
    session_finished,
    write_pooling,
)
from tradeoff.study.withdrawals import withdraw

from ..conftest import small_scenario_file, spec

pytestmark = [pytest.mark.e2e, pytest.mark.other_path]

TRUTHS = ([0.5, 0.2, 0.2, 0.1], [0.4, 0.3, 0.2, 0.1])


def make_study(tmp_path: Path, people: int = 6) -> Path:
    ids = [f"p{i}" for i in range(people)] + ["later"]
    study, _ = create_study(small_scenario_file(tmp_path), ids, tmp_path / "s")
    return study.path


def finish_sessions(study: Path, count: int, every: int) -> list[bool]:
    loaded = load_scenario(load_study(study).scenario_path)
    s = spec(loaded.scenario, strategy="joint", budget=4)
    due = []
    for i in range(count):
        rec = start_session(
            loaded, f"p{i}", study / "sessions", spec=s, seed=i, start=current_prior(study)
        )
        oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTHS[i % 2], seed=i)
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
        rec.close()
        due.append(session_finished(study, rec.path))
    return due


def test_pooled_every_k_sessions_and_later_sessions_start_from_it(tmp_path: Path) -> None:
    study = make_study(tmp_path)
    write_pooling(study, Pooling(True, every=5))
    assert finish_sessions(study, 5, 5) == [False] * 4 + [True]
    assert current_prior(study) is None  # not pooled yet: the refresh is separate
    prior = refresh_prior(study)
    assert prior is not None and len(prior.sessions) == 5
    now = current_prior(study)
    assert now is not None and now.sha256 == prior.sha256
    loaded = load_scenario(load_study(study).scenario_path)
    rec = start_session(
        loaded,
        "later",
        study / "sessions",
        spec=spec(loaded.scenario, strategy="joint", budget=4),
        start=current_prior(study),
    )
    rec.close()
    log = read_session(rec.path)
    assert log.header.population_prior is not None
    assert log.header.population_prior.sha256 == prior.sha256
    assert log.header.population_prior.sessions == 5
    assert replay(log).start is not None


def test_switched_off_nothing_is_pooled_or_used(tmp_path: Path) -> None:
    study = make_study(tmp_path, 2)
    write_pooling(study, Pooling(False))
    assert finish_sessions(study, 2, 1) == [False, False]
    assert not (study / "priors").exists()
    assert current_prior(study) is None


def test_a_withdrawn_participant_is_not_pooled(tmp_path: Path) -> None:
    study = make_study(tmp_path)
    write_pooling(study, Pooling(True, every=6))
    finish_sessions(study, 6, 6)
    assert refresh_prior(study) is not None
    withdraw(load_study(study), "p0")
    again = refresh_prior(study)
    assert again is not None and len(again.sessions) == 5
    p0 = next((study / "sessions" / "p0").glob("*.jsonl"))
    assert hashlib.sha256(p0.read_bytes()).hexdigest() not in again.sessions


def test_an_erased_participant_leaves_the_pooling_files_and_no_prior_names_anyone(
    tmp_path: Path,
) -> None:
    """A prior is kept for good (sessions replay from it), so it names the sessions it
    pooled by the hash of their bytes; the list of finished sessions names participants,
    and study erase takes theirs out of it, every other line kept."""
    study = make_study(tmp_path)
    write_pooling(study, Pooling(True, every=6))
    finish_sessions(study, 6, 6)
    assert refresh_prior(study) is not None
    finished = study / "priors" / "finished.txt"
    before = finished.read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith("p1/") for line in before) == 1
    tombstone = erase(study, "p1")
    after = finished.read_text(encoding="utf-8").splitlines()
    assert after == [line for line in before if not line.startswith("p1/")]
    assert tombstone["removed"]["priors/finished.txt"] == {"lines": 1}
    for stored in (study / "priors").glob("*.json"):
        text = stored.read_text(encoding="utf-8")
        assert not any(f'"p{i}/' in text or f"p{i}/" in text for i in range(6)), stored.name


def test_the_setting_is_off_when_absent_and_checked_when_present(tmp_path: Path) -> None:
    assert read_pooling(tmp_path) == Pooling(False)
    (tmp_path / POOLING_FILE).write_text(json.dumps({"enabled": True, "every": 0}))
    with pytest.raises(InputError) as err:
        read_pooling(tmp_path)
    assert POOLING_FILE in str(err.value) and "'every'" in str(err.value)
    (tmp_path / POOLING_FILE).write_text(json.dumps({"enabled": "yes"}))
    with pytest.raises(InputError, match="'enabled'"):
        read_pooling(tmp_path)


def test_a_pooling_replays_only_the_sessions_finished_since_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tradeoff.study.pooling as pooling

    study = make_study(tmp_path, 8)
    write_pooling(study, Pooling(True, every=5))
    finish_sessions(study, 5, 5)
    replayed: list[str] = []

    def counting(log, **kw):  # type: ignore[no-untyped-def]
        replayed.append(log.path.name)
        return replay(log, **kw)

    monkeypatch.setattr(pooling, "replay", counting)
    pooling._OWN.clear()
    assert refresh_prior(study) is not None
    assert len(replayed) == 5
    loaded = load_scenario(load_study(study).scenario_path)
    s = spec(loaded.scenario, strategy="joint", budget=4)
    for i in range(5, 7):  # two more people, started from no prior (as the first five)
        rec = start_session(loaded, f"p{i}", study / "sessions", spec=s, seed=i)
        oracle = SimulatedOracle.for_scenario(loaded.scenario, TRUTHS[i % 2], seed=i)
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        rec.finish()
        rec.close()
        session_finished(study, rec.path)
    kept = refresh_prior(study)
    assert kept is not None and len(kept.sessions) == 7
    assert len(replayed) == 7  # the five pooled before are not replayed again
    pooling._OWN.clear()  # from scratch: every session replayed, the same prior
    fresh = refresh_prior(study)
    assert fresh is not None and fresh.sha256 == kept.sha256
    assert len(replayed) == 14
    # a withdrawn participant's posterior leaves memory at the next pooling
    withdraw(load_study(study), "p6")
    assert refresh_prior(study) is not None
    assert len(pooling._OWN) == 6 and len(replayed) == 14
