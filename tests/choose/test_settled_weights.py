"""A rule or a scorer built from weights the answers did not settle says so: after two
answers the threshold of the rule tuned to a person rests on the prior (its 90% interval
spans a factor of hundreds in the odds), and `person_scorer`, `pool from-sklearn --for`
and `select` on the tuned pool say how many answers it rests on, the interval, and to
answer more questions; thirty answers that settle it bring no such sentence."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.decide import load_stakeholders
from tradeoff.choose.scorer import person_scorer, session_certainty
from tradeoff.choose.settled import SETTLED_SPREAD, UnsettledWeights
from tradeoff.choose.stakeholder import expected_weights
from tradeoff.cli import main
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.opening import start_session

pytestmark = pytest.mark.e2e

ONCOLOGIST = next(Path("sessions/examples/example-oncologist").glob("*.jsonl"))
CONSTANTS = {"latency": 0.4, "memory": 3.0}


def _session(tmp_path: Path, answers: int) -> Path:
    loaded = load_scenario("breast-cancer-triage")
    rec = start_session(loaded, "dr-two", tmp_path, seed=2)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, [0.6, 0.06, 0.3, 0.04])
    for _ in range(answers):
        query = rec.engine.next_query()
        assert query is not None
        rec.answer(oracle.choose(query))
    rec.close()
    return Path(rec.path)


def _weighted_interval(path: Path) -> tuple[float, float]:
    """The threshold's 90% interval by brute force: each posterior draw's threshold
    w₁/(w₀ + w₁) on d = π·recall, sorted, read where the draws' weight reaches 5% and 95%."""
    _, (person,) = load_stakeholders([path])
    assert person.posterior is not None
    draws, weights = person.posterior
    pts = draws[:, 1] / (draws[:, 0] + draws[:, 1])
    order = np.argsort(pts)
    cum = np.cumsum(weights[order]) / weights.sum()
    return float(pts[order][np.searchsorted(cum, 0.05)]), float(
        pts[order][np.searchsorted(cum, 0.95)]
    )


def test_two_answers_are_unsettled_and_the_scorer_warns(tmp_path: Path) -> None:
    path = _session(tmp_path, 2)
    with pytest.warns(UnsettledWeights) as caught:
        scorer = person_scorer(path, attributes=CONSTANTS)
    said = str(caught[0].message)
    assert said.startswith("dr-two: The threshold of the rule tuned to these weights")
    assert "rests on 2 answers: 90% between" in said
    assert said.endswith("answer more questions to settle it.")
    certainty = scorer.certainty
    assert certainty is not None and not certainty.settled
    assert certainty.spread > SETTLED_SPREAD
    low, high = certainty.threshold.low, certainty.threshold.high
    assert low is not None and high is not None
    assert low <= certainty.threshold.value <= high
    w = expected_weights(load_stakeholders([path])[1][0])
    assert certainty.threshold.value == pytest.approx(w[1] / (w[0] + w[1]), rel=1e-9)
    brute = _weighted_interval(path)
    assert (low, high) == pytest.approx(brute, rel=0.05, abs=1e-3)


def test_settled_weights_bring_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorer = person_scorer(ONCOLOGIST, attributes=CONSTANTS)
    assert scorer.certainty is not None and scorer.certainty.settled
    assert "answer more" not in scorer.certainty.words()


def test_the_tuned_pool_says_its_threshold_is_unsettled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pool from-sklearn --for` says it on stderr before measuring and in --json and
    the provenance; `select` on that pool says it beside the tuned model's words."""
    path = _session(tmp_path, 2)
    models = tmp_path / "models.py"
    models.write_text(
        "from sklearn.naive_bayes import GaussianNB\n"
        "from sklearn.tree import DecisionTreeClassifier\n"
        "ESTIMATORS = {'naive-bayes': GaussianNB(),\n"
        "              'tree-depth2': DecisionTreeClassifier(max_depth=2, random_state=0)}\n"
    )
    out = tmp_path / "pool.csv"
    argv = ["pool", "from-sklearn", "--estimators", str(models), "--dataset", "breast_cancer"]
    argv += ["--latency-repeats", "2", "--for", str(path), "--out", str(out), "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "rests on 2 answers: 90% between" in captured.err
    shown = json.loads(captured.out)["tuned_threshold"]
    assert shown["settled"] is False and shown["answers"] == 2
    certainty = session_certainty(path)
    assert certainty is not None
    assert shown["interval"] == pytest.approx([certainty.threshold.low, certainty.threshold.high])
    provenance = json.loads(out.with_suffix(".provenance.json").read_text())
    assert provenance["tuned"]["threshold"]["settled"] is False
    assert main(["select", str(out), "--session", str(path)]) == 0
    assert certainty.words() in capsys.readouterr().out
