"""The arms' comparison: the Newcombe interval against statsmodels' own, the bootstrap
interval seeded and around the difference, the right picks counted per arm, and a
right-picks file checked line by line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.errors import InputError
from tradeoff.study.arm_report import (
    bootstrap_median_difference,
    comparison,
    comparison_md,
    newcombe,
    read_truths,
    wilson,
)

pytestmark = pytest.mark.core


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.integers(1, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
)
def test_newcombe_is_statsmodels_newcomb(a: tuple[int, int], b: tuple[int, int]) -> None:
    from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

    (x1, n1), (x2, n2) = a, b
    d, low, high = newcombe(x1, n1, x2, n2)
    ref = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff")
    assert low == pytest.approx(ref[0], abs=1e-9) and high == pytest.approx(ref[1], abs=1e-9)
    assert low <= d <= high
    assert wilson(x1, n1) == pytest.approx(proportion_confint(x1, n1, method="wilson"), abs=1e-9)


def test_the_bootstrap_is_seeded_and_brackets_the_difference() -> None:
    a, b = [6, 6, 5, 6, 4, 6, 6, 5], [3, 4, 3, 2, 4, 3, 3, 4]
    first = bootstrap_median_difference(a, b)
    assert first == bootstrap_median_difference(a, b)
    d, low, high = first
    assert d == 3.0 and low <= d <= high and low > 0


def test_each_arms_results_and_the_difference() -> None:
    people = [
        {
            "participant": f"p{n}",
            "arm": arm,
            "completed": done,
            "questions_answered": q,
            "final_pick": pick,
        }
        for n, (arm, done, q, pick) in enumerate(
            [
                ("a", True, 5, "x"),
                ("a", True, 7, "y"),
                ("a", False, 2, None),
                ("b", True, 3, "x"),
                ("b", True, 4, "x"),
                ("c", False, 1, None),
            ]
        )
    ]
    truths = {"p0": "x", "p1": "x", "p3": "x", "p4": "y"}
    data = comparison(["a", "b", "c"], people, truths)
    a, b, c = data["arms"]
    assert (a["participants"], a["completed"], a["median_questions"]) == (3, 2, 6.0)
    assert (a["right_picks"], a["with_known_right_pick"]) == (1, 2)
    assert (b["right_picks"], b["with_known_right_pick"]) == (1, 2)
    assert c["completed"] == 0 and c["right_picks"] is None and c["median_questions"] is None
    against_b, against_c = data["differences"]
    assert against_b["right_picks"]["difference"] == 0.0
    assert against_b["median_questions"]["difference"] == -2.5
    assert "right_picks" not in against_c and "median_questions" not in against_c
    assert "| a | 3 | 2 | 6 | 1 of 2 |" in comparison_md(data)


def test_a_right_picks_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "truths.csv"
    path.write_text("participant,right_pick\np01,x\np02,y\n")
    assert read_truths(path, ["p01", "p02"], ["x", "y"]) == {"p01": "x", "p02": "y"}
    for text, where in [
        ("who,pick\n", "line 1"),
        ("participant,right_pick\np09,x\n", "line 2, participant"),
        ("participant,right_pick\np01,x\np01,y\n", "line 3, participant"),
        ("participant,right_pick\np01,z\n", "line 2, right_pick"),
        # blank lines count as an editor counts them
        ("\nparticipant,right_pick\n\np01,x\n\np01,y\n", "line 6, participant"),
        (
            "participant,right_pick\np01," + "x" * 200_000 + "\n",
            "line 2: has a cell longer than 131,072 characters",
        ),
    ]:
        path.write_text(text)
        with pytest.raises(InputError) as bad:
            read_truths(path, ["p01", "p02"], ["x", "y"])
        assert where in bad.value.message() and str(path) in bad.value.message()
