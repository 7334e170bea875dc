"""``tradeoff choices predict --pooled``: a person starts from the population prior learnt
from the other people of TRAIN, not from the engine's own prior; someone whose own choices
go against everyone else's still gets their own answer."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tradeoff.cli import main

pytestmark = pytest.mark.core

HEADER = "person,A_price,A_time,A_changes,A_discomfort,B_price,B_time,B_changes,B_discomfort"
CHEAP, FAST = "20,150,0,1", "40,120,0,1"


def predictions(tmp_path: Path, name: str, *extra: str) -> dict[str, float]:
    train = tmp_path / "train.csv"
    if not train.exists():
        rows = [f"{p},{CHEAP},{FAST},A" for p in ("ana", "bo", "cy", "di") for _ in range(6)]
        rows += [f"ed,{CHEAP},{FAST},B" for _ in range(6)]
        train.write_text("\n".join([HEADER + ",answer", *rows]) + "\n")
    holdout = tmp_path / "holdout.csv"
    holdout.write_text("\n".join([HEADER, f"new,{CHEAP},{FAST}", f"ed,{CHEAP},{FAST}"]) + "\n")
    out = tmp_path / name
    args = ["choices", "predict", str(train), str(holdout), "--scenario", "train-trips"]
    assert main([*args, "--out", str(out), *extra]) == 0
    with out.open(newline="") as fh:
        return {r["person"]: float(r["p_A"]) for r in csv.DictReader(fh)}


def test_pooled_borrows_from_the_others_and_keeps_a_persons_own_choices(
    tmp_path: Path,
) -> None:
    alone = predictions(tmp_path, "alone.csv")
    pooled = predictions(tmp_path, "pooled.csv", "--pooled")
    assert 0.2 < alone["new"] < 0.8  # the engine's own prior: no idea
    # Four of five people took the cheap trip; with five people the engine's own prior
    # keeps about half of the population prior (tradeoff.learn.pooled.fitted_base_share:
    # so few choices cannot say how many people are like no one else).
    assert pooled["new"] > alone["new"] + 0.1
    assert pooled["ed"] < 0.25 and alone["ed"] < 0.25  # ed's six choices still decide


def test_with_nobody_else_in_train_a_person_starts_from_the_engines_prior(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--pooled with one person in TRAIN: there is no population to learn for them, so their
    predictions are those without --pooled, and the command says so; a person with no
    choices of their own still learns from the one who has some."""
    train = tmp_path / "train.csv"
    train.write_text("\n".join([HEADER + ",answer", *[f"ana,{CHEAP},{FAST},A"] * 6]) + "\n")
    holdout = tmp_path / "holdout.csv"
    holdout.write_text("\n".join([HEADER, f"ana,{CHEAP},{FAST}", f"new,{CHEAP},{FAST}"]) + "\n")
    args = ["choices", "predict", str(train), str(holdout), "--scenario", "train-trips"]
    p = {}
    for name, extra in (("alone", []), ("pooled", ["--pooled"])):
        assert main([*args, "--out", str(tmp_path / f"{name}.csv"), *extra]) == 0
        with (tmp_path / f"{name}.csv").open(newline="") as fh:
            p[name] = {r["person"]: float(r["p_A"]) for r in csv.DictReader(fh)}
    assert p["pooled"]["ana"] == pytest.approx(p["alone"]["ana"], abs=1e-9)
    assert p["pooled"]["new"] > p["alone"]["new"] + 0.1  # learnt from ana
    out = capsys.readouterr().out
    assert "1 of them started from the population prior" in out
    # One person's choices give no population to weigh the engine's share against: the
    # share stays as set (tradeoff.learn.pooled.BASE_SHARE) and is said.
    assert "the engine's own prior is 10% of it" in out
    assert "1 of them had no one else in" in out and "the engine's own prior" in out


def test_the_help_says_the_share_comes_from_the_choices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The engine's own prior's share of the population prior is estimated from TRAIN's
    choices (as the command prints it), not a fixed tenth."""
    assert main(["choices", "predict", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "tenth" not in text
    assert "as much as their choices give it" in text
