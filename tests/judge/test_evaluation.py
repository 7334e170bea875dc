"""Judging systems: hypervolume, paper 003's indicators and radar, paper 002's permutation test,
paper 001's optimistic/pessimistic fronts."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import moocore
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tradeoff import judge as ev
from tradeoff.cli import main
from tradeoff.judge import render
from tradeoff.judge.permutation import _grid_hypervolumes
from tradeoff.simulation.bench import null_p_values, permutation_power

from ..conftest import ROOT

pytestmark = pytest.mark.core

GAP_DATA = str(ROOT / "data" / "mind-the-gap" / "sgd_randomsearch50_creditg_seed1337.csv")


def brute_hv(points: np.ndarray, ref: np.ndarray) -> float:
    """Inclusion–exclusion over all subsets: an independent, obviously-correct hypervolume."""
    pts = points[(points < ref).all(axis=1)]
    total = 0.0
    for size in range(1, len(pts) + 1):
        for subset in itertools.combinations(range(len(pts)), size):
            corner = pts[list(subset)].max(axis=0)
            total += (-1) ** (size + 1) * float(np.prod(ref - corner))
    return total


fronts = st.integers(2, 4).flatmap(
    lambda d: arrays(
        np.float64,
        st.tuples(st.integers(1, 7), st.just(d)),
        elements=st.floats(0, 1, allow_nan=False).map(lambda x: round(x, 3)),
    )
)


@given(points=fronts)
def test_hypervolume_matches_brute_force_and_moocore(points: np.ndarray) -> None:
    ref = np.full(points.shape[1], 1.1)
    hv = ev.hypervolume(points, ref)
    assert hv == pytest.approx(brute_hv(points, ref), abs=1e-12)
    assert abs(hv - float(moocore.hypervolume(points, ref=ref))) <= 1e-12


@given(
    points=arrays(
        np.float64,
        st.tuples(st.integers(1, 9), st.just(6)),
        elements=st.floats(0, 1).map(lambda x: round(x, 2)),
    )
)
def test_wfg_path_for_six_objectives_matches_moocore(points: np.ndarray) -> None:
    ref = np.full(6, 1.2)
    assert ev.hypervolume(points, ref) == pytest.approx(
        float(moocore.hypervolume(points, ref=ref)), abs=1e-12
    )


def _paper_002_listing(points: np.ndarray, ref: np.ndarray) -> float:
    """Paper 002 §3.2's ``hypervolume_2d``, transcribed as printed."""
    pts = points[np.argsort(points[:, 0])]
    hv, prev_y = 0.0, ref[1]
    for x, y in pts:
        if x >= ref[0] or y >= ref[1]:
            continue
        hv += (ref[0] - x) * (prev_y - y)
        prev_y = y
    return float(hv)


def test_the_paper_002_listing_mishandles_dominated_points() -> None:
    """By hand: (0.2, 0.4) covers 0.8 × 0.6 = 0.48 below ref (1, 1), (0.6, 0.2) adds
    0.4 × 0.2 = 0.08, and (0.4, 0.6) is dominated: HV = 0.56. The listing subtracts the
    dominated point's negative strip and gets 0.52; on non-dominated input it agrees."""
    pts, ref = np.array([[0.2, 0.4], [0.4, 0.6], [0.6, 0.2]]), np.array([1.0, 1.0])
    assert ev.hypervolume(pts, ref) == pytest.approx(0.56)
    assert _paper_002_listing(pts, ref) == pytest.approx(0.52)
    front = pts[ev.nondominated(pts)]
    assert _paper_002_listing(front, ref) == pytest.approx(ev.hypervolume(pts, ref))


def test_points_not_dominating_the_reference_add_nothing() -> None:
    ref = np.array([1.0, 1.0])
    assert ev.hypervolume(np.array([[0.5, 0.5], [2.0, 0.0]]), ref) == pytest.approx(0.25)
    rows, _ = ev.indicators(
        {"a": np.array([[0.5, 0.5], [2.0, 0.0]]), "b": np.array([[0.2, 0.9]])}, ref=ref
    )
    assert rows[0].excluded == 1


def test_radar_area_by_the_surveyors_formula() -> None:
    assert ev.radar_area([1, 1, 1, 1]) == pytest.approx(2.0)  # square of diagonal 2
    assert ev.radar_area([1, 0, 1, 0]) == pytest.approx(0.0)
    assert ev.radar_area([2, 2, 2]) == pytest.approx(3 * math.sqrt(3))  # r²·(3√3/4)
    assert ev.radar_area([1] * 5) == pytest.approx(2.378, abs=1e-3)  # paper 003: ≈ 2.37
    # Paper 003 Table 9b: normalised areas 0.83 and 0.04.
    assert ev.radar_area_normalised([0.93, 1.00, 0.90, 0.85, 0.89]) == pytest.approx(0.83, abs=0.01)
    assert ev.radar_area_normalised([0.18, 0.50, 0.15, 0.07, 0.14]) == pytest.approx(0.04, abs=0.01)


def test_indicators_by_hand() -> None:
    a = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0], [0.9, 0.9]])  # one dominated
    b = np.array([[0.6, 0.6]])
    rows, ref = ev.indicators({"a": a, "b": b}, ref=np.array([2.0, 2.0]), sigma=0.6)
    ra, rb = rows
    assert (ra.onvg, rb.onvg) == (3, 1)
    assert ra.onvgr == pytest.approx(0.75) and rb.onvgr == 1.0
    assert ra.onvg_normalised == 1.0 and rb.onvg_normalised == pytest.approx(1 / 3)
    assert ra.hv == pytest.approx(2.0 * 2.0 - (0.5 * 1.0 * 2 + 0.25) - 0.0, abs=1.0)
    assert ra.hv == pytest.approx(brute_hv(a, ref))
    # Scaled by the joint front's range (1, 1): distances 0.707 and 1.414; σ = 0.6 → no
    # neighbours, all niche counts 0, D_nc = 0, UD = 1.
    assert ra.ud == pytest.approx(1.0) and ra.d_nc == pytest.approx(0.0)
    assert ra.os == pytest.approx(1.0)  # spans the joint front entirely
    assert rb.ud is None and rb.os is None  # a single solution: not defined
    table = render.measurement_table(rows)
    assert "n/d" in table


def test_a_uniform_front_scores_higher_on_the_radar_than_a_clustered_one() -> None:
    """Paper 003's intent: higher = more uniform on every radar axis. Five evenly spaced
    points against a cluster of three plus one far point (by hand: the joint front is the
    five points, range 1 × 1; neighbours 0.354 apart, so with σ = 0.4 the niche counts are
    [1, 2, 2, 2, 1] → D_nc = 0.548, UD = 0.646, and [2, 2, 2, 0] → D_nc = 1.0, UD = 0.5).
    With the radar axis 1 − UD the clustered front would score higher on uniformity."""
    t = np.linspace(0.0, 1.0, 5)
    uniform = np.column_stack((t, 1.0 - t))
    clustered = np.array([[0.0, 1.0], [0.05, 0.95], [0.1, 0.9], [1.0, 0.0]]) + 0.2
    rows, _ = ev.indicators({"uniform": uniform, "clustered": clustered}, sigma=0.4)
    u, c = rows
    assert u.d_nc == pytest.approx(np.std([1, 2, 2, 2, 1], ddof=1))
    assert c.d_nc == pytest.approx(1.0)
    assert u.ud == pytest.approx(1 / (1 + np.std([1, 2, 2, 2, 1], ddof=1)))
    assert c.ud == pytest.approx(0.5)
    assert u.ud > c.ud and u.radar_values()[3] > c.radar_values()[3]
    assert u.hv > c.hv and u.area > c.area


def test_hv_scale_raw_is_the_papers_and_the_default_for_unit_objectives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pts = {"a": np.array([[0.2, 0.6], [0.6, 0.2]]), "b": np.array([[0.5, 0.5]])}
    ref = np.array([1.0, 1.0])
    raw, _ = ev.indicators(pts, ref=ref, hv_scale="raw")
    box, _ = ev.indicators(pts, ref=ref, hv_scale="box")
    # by hand: HV(a) = 0.8·0.4 + 0.4·0.8 − 0.4·0.4 = 0.48; the box is 0.8 × 0.8
    assert raw[0].hv_normalised == pytest.approx(0.48) == raw[0].hv
    assert box[0].hv_normalised == pytest.approx(0.48 / 0.64)
    frame = pd.DataFrame({"system": ["a", "a", "b"], "f1": [0.2, 0.6, 0.5], "f2": [0.6, 0.2, 0.5]})
    frame.to_csv(tmp_path / "s.csv", index=False)
    argv = ["compare", str(tmp_path / "s.csv"), "--system", "system", "--objective", "f1:min"]
    argv += ["--objective", "f2:min", "--ref", "1,1", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hv_scale"] == "raw"
    assert data["systems"][0]["hv_normalised"] == pytest.approx(0.48)
    assert main([*argv[:-1], "--hv-scale", "box", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["systems"][0]["hv_normalised"] == pytest.approx(0.75)
    # objectives outside [0, 1]: box by default; raw on request, with a warning
    frame["f1"] *= 10
    frame.to_csv(tmp_path / "s.csv", index=False)
    argv[argv.index("1,1")] = "10,1"
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["hv_scale"] == "box"
    assert main([*argv[:-1], "--hv-scale", "raw", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("outside [0, 1]" in w for w in data["warnings"])


def test_niche_counts() -> None:
    front = np.array([[0.0], [0.1], [0.2], [1.0]])
    # nc = [1, 2, 1, 0] for σ = 0.15 → sd (ddof 1) = 0.8165
    assert ev.uniform_distribution(front, 0.15) == pytest.approx(
        1 / (1 + np.std([1, 2, 1, 0], ddof=1))
    )


def test_mind_the_gap_table1(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "gap",
        GAP_DATA,
        "--validation",
        "validation_precision_error,validation_recall_error",
        "--test",
        "test_precision_error,test_recall_error",
        "--direction",
        "min",
        "--ref",
        "1,1",
        "--drop-point",
        "1,1",
        "--json",
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["validation_hv"], 4) == 0.5804
    # The paper prints 0.5989 for the optimistic HV, but its own gap (0.0009) and pessimistic
    # HV (0.5970) give 0.5979: the printed value is a typo, this one is right.
    assert round(data["optimistic_hv"], 4) == 0.5979
    assert round(data["pessimistic_hv"], 4) == 0.5970
    assert round(data["gap"], 4) == 0.0009
    assert len(data["validation_pareto"]) == 12
    assert set(data["optimistic"]) <= set(data["validation_pareto"])
    assert set(data["pessimistic"]) <= set(data["validation_pareto"])


def test_duplicate_validation_points_count_once() -> None:
    val = np.array([[0.2, 0.5], [0.2, 0.5], [0.5, 0.2]])
    tst = np.array([[0.3, 0.6], [0.1, 0.1], [0.6, 0.3]])
    g = ev.generalisation(val, tst, ["a", "b", "c"], ref=np.array([1.0, 1.0]))
    assert g.validation_pareto == ("a", "c")


def test_generalisation_comparisons() -> None:
    good = ev.generalisation(
        np.array([[0.1, 0.9], [0.9, 0.1]]),
        np.array([[0.1, 0.9], [0.9, 0.1]]),
        ["a", "b"],
        ref=np.array([1.0, 1.0]),
    )
    bad = ev.generalisation(
        np.array([[0.2, 0.95], [0.95, 0.2]]),
        np.array([[0.3, 0.95], [0.95, 0.3]]),
        ["c", "d"],
        ref=np.array([1.0, 1.0]),
    )
    cmp = ev.compare_generalisation(good, bad)
    assert cmp["a_pessimistic_above_b_optimistic"]
    assert cmp["a_pessimistic_dominates_b_optimistic"]
    assert not cmp["b_pessimistic_dominates_a_optimistic"]
    assert good.gap == 0.0


def test_permutation_grid_equals_one_hypervolume_per_permutation() -> None:
    rng = np.random.default_rng(3)
    runs = [rng.random((2, 3)) for _ in range(12)]
    pts = np.vstack(runs)
    unit = np.repeat(np.arange(12), 2)
    members = rng.random((40, 12)) < 0.5
    ref = ev.reference_point(pts)
    fast = _grid_hypervolumes(pts, unit, 12, members, ref)
    assert fast is not None
    slow = [ev.hypervolume(pts[m[unit]], ref) for m in members]
    np.testing.assert_allclose(fast, slow, atol=1e-12)


def test_permutation_p_value_formula_and_seed() -> None:
    rng = np.random.default_rng(0)
    base = [rng.random((1, 3)) for _ in range(6)]
    new = [rng.random((1, 3)) * 0.6 for _ in range(6)]
    # 6 + 6 runs split in C(12, 6) = 924 ways: B = 500 samples them at random.
    a = ev.permutation_test(base, new, permutations=500, seed=1)
    b = ev.permutation_test(base, new, permutations=500, seed=1)
    assert a == b and not a.exact
    count = int(np.sum(np.abs(a.null_deltas) >= abs(a.delta) - 1e-12))
    assert a.p_value == (1 + count) / 501
    assert a.delta > 0
    assert any("at least 1000" in w for w in a.warnings)  # B below paper 002's protocol


def test_few_splits_are_enumerated_exactly() -> None:
    """3 + 3 runs split in C(6, 3) = 20 ways, fewer than B: every split is computed, and
    p is the share of splits with |Δ| at least the observed one (by brute force here)."""
    rng = np.random.default_rng(3)
    base = [rng.random((2, 2)) for _ in range(3)]
    new = [rng.random((2, 2)) * 0.7 for _ in range(3)]
    result = ev.permutation_test(base, new, permutations=1000, seed=0)
    assert result.exact and result.permutations == 20
    runs = base + new
    ref = ev.reference_point(np.vstack(runs))

    def hv(idx: tuple[int, ...]) -> float:
        return ev.hypervolume(np.vstack([runs[i] for i in idx]), ref)

    observed = hv((3, 4, 5)) - hv((0, 1, 2))
    deltas = [
        hv(c) - hv(tuple(i for i in range(6) if i not in c))
        for c in itertools.combinations(range(6), 3)
    ]
    assert result.delta == pytest.approx(observed)
    assert result.p_value == pytest.approx(np.mean(np.abs(deltas) >= abs(observed) - 1e-12))
    assert any("at least 5" in w for w in result.warnings)  # K = 3 below the protocol


def test_p_values_are_uniform_under_h0() -> None:
    from scipy.stats import kstest

    p = null_p_values(5, reps=200, permutations=300, seed=7)
    assert 0.01 <= float(np.mean(p < 0.05)) <= 0.10
    assert kstest(p, "uniform").statistic < 0.12


@pytest.mark.stats  # a statistical run in a file of the core tier
def test_power_with_a_true_five_percent_gap() -> None:
    # Full study (more repetitions) in benchmarks/evaluation.py.
    power10 = permutation_power(10, reps=150, permutations=300, seed=2)
    assert power10 > 0.9


def compare_csv(tmp_path: Path) -> str:
    rng = np.random.default_rng(0)
    rows = []
    for system, scale in (("base", 1.0), ("new", 0.9)):
        for seed in range(5):
            for _ in range(3):
                v = np.abs(rng.standard_normal(2))
                v /= np.linalg.norm(v)
                rows.append(
                    {
                        "system": system,
                        "seed": seed,
                        "acc": 0.5 + 0.4 * v[0] / scale,
                        "cost": 1 - 0.8 * v[1] / scale,
                    }
                )
    path = tmp_path / "systems.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def compare_args(path: str) -> list[str]:
    return [
        "compare",
        path,
        "--system",
        "system",
        "--objective",
        "acc:max",
        "--objective",
        "cost:min",
    ]


def test_compare_cli_json_and_radar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = compare_csv(tmp_path)
    png = tmp_path / "radar.png"
    argv = [
        *compare_args(path),
        "--seed-col",
        "seed",
        "--permutations",
        "500",
        "--radar",
        str(png),
        "--json",
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    names = [s["name"] for s in data["systems"]]
    assert names == ["base", "new"]
    for s in data["systems"]:
        assert set(s) >= {"name", "hv", "onvg", "onvgr", "ud", "os", "area"}
    perm = data["permutation"]
    assert perm["baseline"] == "base" and perm["candidate"] == "new"
    # 5 + 5 seed runs split in C(10, 5) = 252 ways, fewer than B = 500: enumerated exactly.
    assert 0 < perm["p_value"] <= 1 and perm["permutations"] == 252 and perm["exact"]
    assert png.stat().st_size > 5000
    assert main(argv[:-1]) == 0
    out = capsys.readouterr().out
    assert "ONVGR" in out and "area" in out


BAD = {
    "missing baseline": (["--baseline", "ghost"], "has no rows"),
    "ref dominated by none": (["--ref", "1,0"], "no solution dominates"),
    "nan": (None, "NaN"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_compare_bad_inputs(tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = compare_csv(tmp_path)
    extra, fragment = BAD[case]
    if extra is None:
        frame = pd.read_csv(path)
        frame.loc[3, "acc"] = np.nan
        frame.to_csv(path, index=False)
        extra = []
    argv = [*compare_args(path), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


def test_gap_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short = tmp_path / "short.csv"
    pd.read_csv(GAP_DATA).head(10).to_csv(short, index=False)
    base = [
        "gap",
        GAP_DATA,
        "--validation",
        "validation_precision_error,validation_recall_error",
        "--test",
        "test_precision_error,test_recall_error",
    ]
    assert main([*base, "--test-file", str(short)]) == 2
    assert "10 rows but the validation table has 50" in capsys.readouterr().err
    assert (
        main(
            [
                "gap",
                GAP_DATA,
                "--validation",
                "validation_precision_error,validation_recall_error",
                "--test",
                "test_precision_error",
            ]
        )
        == 2
    )
    assert "same objectives" in capsys.readouterr().err
    assert main([*base, "--ref", "0,0"]) == 2
    assert "no solution dominates" in capsys.readouterr().err


def test_gap_compares_methods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.read_csv(GAP_DATA)
    worse = frame.copy()
    for col in ("test_precision_error", "test_recall_error"):
        worse[col] = np.minimum(1.0, worse[col] + 0.05)
    frame["method"], worse["method"] = "A", "B"
    path = tmp_path / "two.csv"
    pd.concat([frame, worse]).to_csv(path, index=False)
    argv = [
        "gap",
        str(path),
        "--validation",
        "validation_precision_error,validation_recall_error",
        "--test",
        "test_precision_error,test_recall_error",
        "--ref",
        "1,1",
        "--drop-point",
        "1,1",
        "--group",
        "method",
        "--json",
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["methods"]) == {"A", "B"}
    assert round(data["methods"]["A"]["gap"], 4) == 0.0009
    comparison = data["comparisons"][0]
    assert comparison["a"] == "A" and comparison["b"] == "B"
    assert data["methods"]["A"]["optimistic_hv"] > data["methods"]["B"]["optimistic_hv"]
    assert comparison["smaller_gap"] in ("a", "b", "equal")


def test_counts_are_said_in_the_singular_for_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "1 seed run(s) on one side", "1 solution(s) of a do not dominate": one is one."""
    rng = np.random.default_rng(0)
    base = [rng.random((2, 2))]
    new = [rng.random((2, 2)) * 0.7 for _ in range(3)]
    result = ev.permutation_test(base, new, permutations=1000, seed=0)
    assert any("1 seed run on one side" in w for w in result.warnings), result.warnings
    pool = tmp_path / "fronts.csv"
    pool.write_text("system,f1,f2\na,0.5,0.5\na,2.0,0.0\nb,0.2,0.9\nb,0.3,0.8\n")
    objectives = ["--objective", "f1:min", "--objective", "f2:min"]
    assert (
        main(["judge", "compare", str(pool), "--system", "system", *objectives, "--ref", "1,1"])
        == 0
    )
    said = " ".join(capsys.readouterr().out.split())
    assert "1 solution of a does not dominate the reference point and adds nothing" in said
    assert "(s)" not in said
