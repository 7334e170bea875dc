"""A person's scorer checks what it is given against the scenario: weights, priors, labels,
a cost per case, and the cases scored. Every mistake is an InputError naming the argument
and the fix, never a number (a third label, priors [2, -1] or labels [1, 1] gave one; NaN
priors gave NaN) and never another exception (a wrong length was a bare IndexError).
Property tests: random bad inputs always end in an InputError, good ones in a finite number;
any input at all ends in one of the two."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.choose.scorer import person_scorer
from tradeoff.errors import InputError

from ..conftest import scenario

pytestmark = pytest.mark.core

SC = scenario("breast-cancer-triage")  # classes malignant, benign; latency (ms), memory
ATTRIBUTES = {"latency": 1.0, "memory": 2.0}
WEIGHTS = [0.5, 0.5, 0.1, 0.1]
PRIORS = [0.4, 0.6]


def _score(
    *,
    weights: Any = WEIGHTS,
    priors: Any = PRIORS,
    labels: Any = (0, 1),
    attributes: Any = ATTRIBUTES,
    y: Any = (0, 1, 1, 0),
    pred: Any = (0, 1, 0, 0),
) -> float:
    scorer = person_scorer(
        weights, scenario=SC, priors=priors, labels=labels, attributes=attributes
    )
    return scorer.metric(y, pred)


@pytest.mark.parametrize(
    ("given_", "argument", "said"),
    [
        ({"y": [0, 1, 2], "pred": [0, 1, 2]}, "y: case 3", "holds the label 2"),
        ({"priors": [2, -1]}, "priors: [0] (malignant)", "is 2, not strictly between 0 and 1"),
        ({"priors": [math.nan, 0.5]}, "priors: [0] (malignant)", "is NaN"),
        ({"priors": [0.3, 0.3]}, "priors", "sum to 0.6, not 1"),
        ({"priors": [0.4, 0.3, 0.3]}, "priors", "3 priors for 2 classes"),
        ({"priors": [True, False]}, "priors: [0] (malignant)", "is True, not a number"),
        ({"labels": [1, 1]}, "labels: [1] (benign)", "the label of malignant too"),
        ({"labels": [0, math.nan]}, "labels: [1] (benign)", "which no case can equal"),
        ({"labels": [[0], [1]]}, "labels: [0] (malignant)", "not a single label"),
        ({"labels": {"malignant": 0, "benin": 1}}, "labels: benin", "no such class"),
        ({"y": [0, 1, 1], "pred": [0, 1]}, "y_pred", "holds 2 predictions for 3 cases"),
        ({"y": [[0, 1], [1, 0]], "pred": [0, 1]}, "y", "has the shape (2, 2)"),
        ({"weights": [0.5, "x", 0, 0]}, "weights: [1]", "is 'x', not a number"),
        ({"attributes": {"latency": True, "memory": 2.0}}, "attributes: latency", "True"),
        ({"attributes": {"latency": -1.0, "memory": 2.0}}, "attributes: latency", "-1 is not"),
    ],
)
def test_each_input_that_does_not_fit_the_scenario_is_named(
    given_: dict[str, Any], argument: str, said: str
) -> None:
    with pytest.raises(InputError) as caught:
        _score(**given_)
    message = caught.value.message()
    assert message.startswith(argument) and said in message and "Fix: " in message


# --- Property tests -----------------------------------------------------------------------

LABEL_VALUES = st.one_of(st.integers(-5, 5), st.sampled_from(["M", "B", "malignant", "x", ""]))


@st.composite
def good_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """Inputs that fit: two distinct labels, priors summing to 1, every class in y."""
    first = draw(LABEL_VALUES)
    second = draw(LABEL_VALUES.filter(lambda v: v != first))
    labels = [first, second]
    p = draw(st.floats(0.01, 0.99))
    y = draw(st.lists(st.sampled_from(labels), min_size=0, max_size=20)) + labels
    pred = draw(st.lists(st.sampled_from([*labels, 99]), min_size=len(y), max_size=len(y)))
    weights = draw(st.lists(st.floats(0.0, 10.0), min_size=4, max_size=4).filter(any))
    by_name = draw(st.booleans())
    return {
        "weights": weights,
        "priors": [p, 1.0 - p],
        "labels": {"malignant": first, "benign": second} if by_name else labels,
        "y": y,
        "pred": pred,
    }


BAD_PRIORS = st.one_of(
    st.lists(st.floats(0.01, 0.99), min_size=0, max_size=5).filter(lambda x: len(x) != 2),
    st.tuples(
        st.one_of(
            st.floats(allow_nan=True).filter(lambda v: not 0 < v < 1),
            st.booleans(),
            st.text(max_size=3),
            st.none(),
        ),
        st.floats(0.01, 0.99),
    ).map(lambda t: list(t) if t[0] is not None else [None, t[1]]),
    st.floats(0.01, 0.49).map(lambda p: [p, 1.0 - p + 0.01]),
    st.one_of(st.text(max_size=4), st.integers(), st.none().map(lambda _: 3.5)),
)


def _bad_labels(labels: Any) -> st.SearchStrategy[Any]:
    first = labels["malignant"] if isinstance(labels, dict) else labels[0]
    return st.one_of(
        st.just([first, first]),
        st.lists(LABEL_VALUES, max_size=4).filter(lambda x: len(x) != 2),
        st.just([first, math.nan]),
        st.just([[first], [1]]),
        st.just({"malignant": first}),
        st.just({"malignant": first, "benign": "B", "other": 1}),
        st.text(min_size=2, max_size=2),
        st.integers(),
    )


@st.composite
def bad_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """Good inputs with one thing broken: the priors, the labels, y or the predictions."""
    inputs = draw(good_inputs())
    what = draw(st.sampled_from(["priors", "labels", "y-label", "y-shape", "pred-length"]))
    labels = inputs["labels"]
    listed = list(labels.values()) if isinstance(labels, dict) else labels
    if what == "priors":
        inputs["priors"] = draw(BAD_PRIORS)
    elif what == "labels":
        inputs["labels"] = draw(_bad_labels(labels))
    elif what == "y-label":
        stranger = draw(
            st.one_of(LABEL_VALUES, st.just(math.nan), st.just(None)).filter(
                lambda v: not any(v == x for x in listed)
            )
        )
        at = draw(st.integers(0, len(inputs["y"])))
        inputs["y"] = [*inputs["y"][:at], stranger, *inputs["y"][at:]]
        inputs["pred"] = [*inputs["pred"], listed[0]]
    elif what == "y-shape":
        inputs["y"] = [[v, v] for v in inputs["y"]]
    else:
        extra = draw(st.integers(1, 3))
        cut = draw(st.booleans())
        inputs["pred"] = inputs["pred"][:-extra] if cut else inputs["pred"] + [listed[0]] * extra
    return inputs


@settings(max_examples=100)
@given(good_inputs())
def test_good_inputs_give_a_finite_number(inputs: dict[str, Any]) -> None:
    value = _score(**inputs)
    assert isinstance(value, float) and math.isfinite(value)


@settings(max_examples=150)
@given(bad_inputs())
def test_bad_inputs_always_give_an_input_error(inputs: dict[str, Any]) -> None:
    with pytest.raises(InputError) as caught:
        _score(**inputs)
    assert "Fix: " in caught.value.message()


ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.one_of(st.integers(-2, 2), st.floats(allow_nan=True), st.text(max_size=2))),
    st.lists(st.lists(st.integers(0, 1), max_size=3), max_size=4),
    st.dictionaries(st.sampled_from(["malignant", "benign", "x"]), st.integers(0, 2)),
)


@settings(max_examples=150)
@given(priors=ANYTHING, labels=ANYTHING, y=ANYTHING, pred=ANYTHING)
def test_any_input_ends_in_a_number_or_an_input_error(
    priors: Any, labels: Any, y: Any, pred: Any
) -> None:
    try:
        value = _score(priors=priors, labels=labels, y=y, pred=pred)
    except InputError as exc:
        message = exc.message()
    else:
        message = "Fix: " if math.isfinite(value) else f"not finite: {value}"
    assert "Fix: " in message


def test_numpy_and_pandas_cases_are_read_as_given() -> None:
    pd = pytest.importorskip("pandas")
    y = pd.Series(["M", "B", "B", "M"])
    pred = np.array([["M"], ["B"], ["M"], ["M"]])
    value = _score(labels={"malignant": "M", "benign": "B"}, y=y, pred=pred)
    assert value == pytest.approx(0.5 * 0.4 * 1.0 + 0.5 * 0.6 * 0.5 - 0.1 * 1.0 - 0.1 * 2.0)
