"""Options described by their aspects alone: a scenario without classes and two or more
attributes (the LLM leaderboard, train trips) is validated with located errors, asked by
every strategy with questions whose exchange rates are what they claim, answered end to
end by a simulated person, and said in the trade-off words (select, rank, the report and
simulate: tests/choose/test_aspect_pool.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.ask.aspects import point_tradeoffs, round_step
from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.population import scenario_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.shown import card_lines
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.learn.bisection import prefers_reference
from tradeoff.learn.engine import Engine
from tradeoff.simulation.oracles import SimulatedOracle

from ..conftest import scenario

pytestmark = pytest.mark.core

ASPECTS = """
id = "trips"
title = "Trips"

[[attributes]]
name = "price"
kind = "cost"
range = [1.0, 125.0]
label = "fare"

[[attributes]]
name = "time"
kind = "cost"
range = [55.0, 250.0]
label = "minutes"
"""

POPULATION = """
[population]
seed = 1
"""

ONE_CLASS = """
[[classes]]
name = "sick"
label = "sick people"
"""


def load_text(tmp_path: Path, text: str) -> InputError | None:
    path = tmp_path / "s.toml"
    path.write_text(text)
    try:
        load_scenario(path)
    except InputError as exc:
        return exc
    return None


def test_a_scenario_without_classes_loads_with_two_attributes(tmp_path: Path) -> None:
    assert load_text(tmp_path, ASPECTS) is None
    for name in ("llm-leaderboard", "train-trips"):
        sc = scenario(name)
        assert sc.aspects_only and sc.population is None and len(sc.attributes) >= 2
        assert sc.weight_names == tuple(a.name for a in sc.attributes)


@pytest.mark.parametrize(
    ("text", "where", "fragment"),
    [
        (ASPECTS.split('[[attributes]]\nname = "time"')[0], "classes: ", "no classes and 1"),
        ('id = "x"\ntitle = "t"\n', "classes: ", "no classes and 0 attributes"),
        (ASPECTS + ONE_CLASS + POPULATION, "classes: ", "this one has 1"),
        (ASPECTS + POPULATION, "population: ", "remove [population]"),
        (
            ASPECTS + ONE_CLASS + ONE_CLASS.replace("sick", "well"),
            "population: ",
            "needs a [population]",
        ),
    ],
    ids=["one attribute", "nothing", "one class", "population without classes", "no population"],
)
def test_options_neither_classifiers_nor_aspects_are_located(
    tmp_path: Path, text: str, where: str, fragment: str
) -> None:
    error = load_text(tmp_path, text)
    assert error is not None
    message = error.message()
    assert str(tmp_path / "s.toml") in message and where in message and fragment in message
    assert "Fix:" in message


def test_scenario_check_says_what_the_options_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "check", "train-trips"]) == 0
    out = capsys.readouterr().out
    assert "options  described by their attributes alone" in out
    assert "  classes  " not in out
    assert "its ends shown" not in out  # its ranges' ends read as the format shows them


def test_scenario_check_says_a_range_end_the_format_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Latency's range starts at 0.05 ms, which its format shows as "0.1 ms": the check
    says the range as given beside it."""
    assert main(["scenario", "check", "breast-cancer-triage"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "0.1 ms to score one case … 15.0 ms to score one case (range [0.05, 15]" in out
    assert "range [1, 750]" not in out  # memory's ends read as given


@given(
    st.lists(st.floats(0.01, 10.0), min_size=4, max_size=4),
    st.integers(0, 3),
    st.integers(0, 3),
    st.floats(0.02, 0.98),
    st.sampled_from([0.3, 0.6, 1.0]),
)
def test_a_trade_between_two_aspects_has_the_exchange_rate_it_claims(
    weights: list[float], ref: int, other: int, m: float, share: float
) -> None:
    """Brute force: a person prefers the option with more of the reference aspect exactly
    when their m = w_ref / (w_ref + w_other) (in the signed scale) exceeds the threshold."""
    if ref == other:
        return
    sc = scenario("train-trips")
    space = QuerySpace(sc, scenario_population(sc), context=True)
    assert space.k == 0 and space.can_refer(ref)
    query = space.trade(ref, other, m, share)
    assert query.threshold is not None and math.isclose(query.threshold, m, rel_tol=1e-6)
    for i in range(4):  # only the two traded aspects differ
        if i not in (ref, other):
            assert query.left.attributes[i] == query.right.attributes[i]
    for i in (ref, other):  # every value in its range
        lo, hi = sc.attributes[i].range
        assert lo - 1e-9 <= query.left.attributes[i] <= hi + 1e-9
    assert space.can_ask(query)
    oracle = SimulatedOracle.for_scenario(sc, weights)
    true_m = weights[ref] / (weights[ref] + weights[other])
    if abs(true_m - query.threshold) < 1e-6:
        return
    assert prefers_reference(query, oracle.choose(query), space) == (true_m > query.threshold)


def test_the_frontier_between_two_aspects_is_a_quarter_ellipse() -> None:
    sc = scenario("train-trips")
    space = QuerySpace(sc, scenario_population(sc))
    ends = [space.frontier(0, 1, m) for m in (0.0, 1.0)]
    # m = 0: all weight on time (the least of it, 55 min) and the fare at its worst
    assert ends[0].attributes[:2] == pytest.approx((125.0, 55.0))
    assert ends[1].attributes[:2] == pytest.approx((1.0, 250.0))
    assert space.frontier(0, 1, 0.5).attributes[2:] == (2.0, 1.0)  # the others at the middle


@pytest.mark.parametrize("strategy", ["joint", "probabilistic", "bisection", "paper"])
def test_every_strategy_learns_a_simulated_traveller(strategy: str) -> None:
    sc = scenario("train-trips")
    truth = [0.02, 0.006, 0.5, 0.3]  # per natural unit: ƒ1 ~ 3.3 min
    spec = sc.elicitation.override(strategy=strategy, budget=120 if strategy == "paper" else 25)
    engine = Engine(sc, spec, seed=3)
    oracle = SimulatedOracle.for_scenario(sc, truth)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    estimate = np.asarray(engine.result().weights)
    ratio = estimate[1] / estimate[0]  # the value of time in guilders per minute
    assert ratio == pytest.approx(truth[1] / truth[0], rel=0.35), (strategy, estimate)


def test_cards_and_tradeoffs_speak_of_aspects() -> None:
    sc = scenario("train-trips")
    space = QuerySpace(sc, scenario_population(sc), context=True)
    q = space.trade(0, 1, 0.5, 0.6)
    lines = card_lines(sc, q.left, q.right)
    assert [line.text.split()[-1] for line in lines][:2] == ["fare", "way"]
    assert lines[0].delta and lines[1].delta and not lines[2].delta
    said = [t.text for t in tradeoffs(sc, [1.0, 0.5, 8.0, 4.0], [], None)]
    assert said[0] == "ƒ10.00 of price is worth as much to you as 20 min of time."
    assert point_tradeoffs(sc, [0.0, 1.0, 1.0, 1.0])[0][1] == "Price does not matter to you."
    assert round_step(195.0) == 20.0


def test_an_unsettled_rate_whose_low_end_rounds_to_nothing_is_not_said_as_at_least_nothing() -> (
    None
):
    """A trade-off between two aspects whose 90 % range starts below the smallest amount
    shown ("at least 0 steps of comfort") says that it may be worth nothing, as the
    classes' trade-offs do; in English and in German."""
    from tradeoff.ask.aspects import tradeoffs as aspect_tradeoffs
    from tradeoff.web.i18n import languages

    sc = scenario("train-trips")
    w = np.array([1.0, 0.5, 8.0, 4.0])
    draws = np.tile(w, (400, 1))
    draws[:, 3] *= np.exp(np.random.default_rng(0).normal(0, 3, 400))  # comfort unsettled
    said = {t.aspect: t for t in aspect_tradeoffs(sc, w, draws)}
    assert not said[3].settled
    assert "at least 0" not in said[3].text
    assert said[3].text.startswith(  # not "from no discomfort": that reads as comfort
        "ƒ10.00 of price is perhaps worth nothing to you, perhaps more than the whole range "
        "of discomfort (the 2 steps from 0 steps to 2 steps)"
    )
    de = languages()["de"].words()
    unsure = {t.aspect: t for t in aspect_tradeoffs(sc, w, draws, words=de)}[3].text
    assert unsure.startswith("ƒ10,00 price ist Ihnen vielleicht gar nichts wert"), unsure
    draws[:, 3] = w[3] * np.exp(np.random.default_rng(1).uniform(1, 8, 400))  # comfort counts more
    up_to = {t.aspect: t for t in aspect_tradeoffs(sc, w, draws)}[3].text
    assert "is worth up to" in up_to and "between 0" not in up_to
    german = {t.aspect: t for t in aspect_tradeoffs(sc, w, draws, words=de)}[3].text
    assert "bis zu" in german and "to you" not in german


def test_pick_without_a_pool_speaks_of_options_for_options_described_by_aspects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session of train trips and no pool: the error says there are no candidate
    options (not "models") and how to give them."""
    train = tmp_path / "TRAIN.csv"
    names = ("price", "time", "changes", "discomfort")
    head = ",".join(["person", *(f"{s}_{n}" for s in "AB" for n in names), "answer"])
    train.write_text(f"{head}\nt1,24,150,0,1,40,120,0,1,A\nt1,30,130,1,0,40,120,0,1,B\n")
    sessions = tmp_path / "sessions"
    assert (
        main(
            [
                "choices",
                "fit",
                str(train),
                "--scenario",
                "train-trips",
                "--sessions-dir",
                str(sessions),
            ]
        )
        == 0
    )
    (session,) = sessions.glob("*/*.jsonl")
    capsys.readouterr()
    assert main(["pick", "--session", str(session)]) == 2
    err = capsys.readouterr().err
    assert "no candidate options to choose from" in err and "candidate models" not in err
