"""Each person's threshold probability in select, session show and the report, and the
report's decision curves (PNG and CSV)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace as Fake

import numpy as np
import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.decide import Decision, decide
from tradeoff.choose.decision_curves import (
    curves_section,
    stakeholder_threshold,
    threshold_json,
    threshold_lines,
)
from tradeoff.choose.stakeholder import expected_weights
from tradeoff.cli import main

from ..conftest import ROOT

pytestmark = pytest.mark.e2e

EXAMPLES = sorted((ROOT / "sessions" / "examples").glob("*/*.jsonl"))
K3 = load_scenario(ROOT / "scenarios" / "paper-k3-cost-two-rewards.toml").scenario
BREAST = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml").scenario


@pytest.fixture(scope="module")
def decision() -> Decision:
    return decide(EXAMPLES)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    assert main(["report", "--session", *map(str, EXAMPLES), "--out", str(out)]) == 0
    return out


def test_the_threshold_is_the_posterior_mean_weights_ratio_with_its_interval(
    decision: Decision,
) -> None:
    for s in decision.selection.stakeholders:
        th = stakeholder_threshold(decision.scenario, s)
        assert th is not None and th.low is not None and th.high is not None
        a = expected_weights(s)
        assert th.value == pytest.approx(a[1] / (a[0] + a[1]), rel=1e-12)
        # over the draws the pick came from: every draw's threshold, weighted
        draws, weights = s.posterior
        pts = draws[:, 1] / (draws[:, 0] + draws[:, 1])
        inside = (pts >= th.low) & (pts <= th.high)
        assert float(weights[inside].sum() / weights.sum()) == pytest.approx(0.9, abs=0.05)


def test_select_says_the_threshold_in_text_and_json(
    decision: Decision, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = [a for p in EXAMPLES for a in ("--session", str(p))]
    assert main(["select", *sessions]) == 0
    text = capsys.readouterr().out
    assert text.count("answers put the threshold probability at ") == 2
    assert "benign lumps taken for malignant" in text
    assert "it leaves out latency and memory" in text
    assert main(["select", *sessions, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for entry, s in zip(data["stakeholders"], decision.selection.stakeholders, strict=True):
        th = entry["threshold"]
        a = expected_weights(s)
        assert th["threshold"] == pytest.approx(a[1] / (a[0] + a[1]), rel=1e-9)
        assert th["interval"][0] < th["threshold"] < th["interval"][1]
        assert th["unnecessary_per_found"] == pytest.approx((1 - th["threshold"]) / th["threshold"])
        assert th["positive_class"] == "malignant" and th["sentence"] in text


def test_session_show_says_the_same_threshold(
    decision: Decision, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["session", "show", str(EXAMPLES[0]), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["threshold"]
    person = next(
        s for s in decision.selection.stakeholders if Path(s.path).resolve() == EXAMPLES[0]
    )
    th = stakeholder_threshold(decision.scenario, person)
    assert th is not None
    assert shown["threshold"] == pytest.approx(th.value, rel=1e-9)
    assert shown["interval"] == pytest.approx([th.low, th.high], rel=1e-9)
    assert main(["session", "show", str(EXAMPLES[0])]) == 0
    assert "Your answers put the threshold probability at" in capsys.readouterr().out


def test_the_report_has_the_curves_as_png_and_csv(report: Path, decision: Decision) -> None:
    md = (report / "report.md").read_text()
    assert "## Decision curves" in md and "decision-curves.png" in md
    people = md.split("## Stakeholders", 1)[1].split("## Decision curves", 1)[0]
    assert people.count("answers put the threshold probability at") == 2
    # the group's spread: from the oncologist's 26% to the lab manager's 52%
    assert (
        "Across the 2 people the threshold probability runs from 26% (example-oncologist) "
        "to 52% (example-lab-manager), median 39%. Their 90% intervals do not all overlap"
    ) in md
    assert (report / "decision-curves.png").stat().st_size > 10_000
    with (report / "decision-curves.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    pool = decision.selection.pool
    pi = decision.selection.stakeholders[0].priors[0]
    frame = pool.frame.set_index("model")
    assert {r["model"] for r in rows} == {*pool.names, "treat all", "treat none"}
    for r in rows[::37]:
        t, nb = float(r["threshold"]), float(r["net_benefit"])
        w = t / (1 - t)
        if r["kind"] == "fixed classifier":
            r1 = frame.loc[r["model"], "recall_malignant"]
            r0 = frame.loc[r["model"], "recall_benign"]
            assert nb == pytest.approx(pi * r1 - (1 - pi) * (1 - r0) * w, abs=1e-8)
        elif r["kind"] == "treat all":
            assert nb == pytest.approx(pi - (1 - pi) * w, abs=1e-8)
        else:
            assert nb == 0.0


def test_more_than_two_classes_say_there_are_no_curves(tmp_path: Path) -> None:
    person = Fake(
        participant="kim",
        priors=(0.3, 0.3, 0.4),
        posterior=None,
        draws=None,
        weights=(0.3, 0.2, 0.2, 0.2, 0.1),
        swing_weights=None,
    )
    selection = Fake(scenario=K3, stakeholders=[person], pool=Fake(frame=pd.DataFrame()))
    md = curves_section(selection, tmp_path)  # type: ignore[arg-type]
    assert "Decision curves apply to a two-class decision" in " ".join(md)
    assert "3 classes" in " ".join(md)
    assert not (tmp_path / "decision-curves.csv").exists()
    assert threshold_lines(selection, 0) == []  # type: ignore[arg-type]
    assert threshold_json(selection) == [None]  # type: ignore[arg-type]


def two_answers_apart(participant: str) -> Fake:
    """A two-class person whose posterior draws put the threshold at about 15%."""
    return Fake(
        participant=participant,
        priors=(0.4, 0.6),
        posterior=None,
        draws=np.array([[0.8, 0.2, 0, 0], [0.9, 0.1, 0, 0]]),
        weights=(0.85, 0.15, 0.0, 0.0),
        swing_weights=None,
        shares=None,
        answers=12,
    )


def test_a_pool_with_tuned_models_says_the_rule_is_the_curve_at_the_threshold() -> None:
    person = two_answers_apart("kim")
    frame = pd.DataFrame({"variant_of": ["", "lr"], "tuned_for": ["", "kim"]})
    selection = Fake(scenario=BREAST, stakeholders=[person], pool=Fake(frame=frame))
    lines = threshold_lines(selection, 0)  # type: ignore[arg-type]
    assert lines[0].startswith("Participant kim's answers put the threshold probability at 15%")
    assert "it is that model's decision curve read at this threshold" in lines[-1]
    assert "at least 15%" in lines[-1]


def test_a_tuned_rule_on_unsettled_weights_says_so() -> None:
    """Draws whose thresholds run from 1% to 50% (odds 0.01 to 1) after two answers: the
    tuned model's words are followed by what the threshold rests on and to ask on."""
    person = Fake(
        participant="kim",
        priors=(0.4, 0.6),
        posterior=None,
        draws=np.array([[0.99, 0.01, 0, 0], [0.5, 0.5, 0, 0], [0.9, 0.1, 0, 0]]),
        weights=(0.85, 0.15, 0.0, 0.0),
        swing_weights=None,
        shares=None,
        answers=2,
    )
    frame = pd.DataFrame({"variant_of": ["", "lr"], "tuned_for": ["", "kim"]})
    selection = Fake(scenario=BREAST, stakeholders=[person], pool=Fake(frame=frame))
    lines = threshold_lines(selection, 0)  # type: ignore[arg-type]
    assert "decision curve read at this threshold" in lines[-2]
    assert lines[-1].startswith("The threshold of the rule tuned to these weights (20%)")
    assert "rests on 2 answers: 90% between" in lines[-1]
    assert lines[-1].endswith("answer more questions to settle it.")
    said = threshold_json(selection)[0]  # type: ignore[arg-type]
    assert said is not None and said["weights_settled"]["settled"] is False


def test_a_model_name_that_a_spreadsheet_would_run_is_written_as_text(
    tmp_path: Path, decision: Decision
) -> None:
    from dataclasses import replace

    from tradeoff.choose.decision_curves import write_curve_table

    pool = decision.selection.pool
    hostile = replace(pool, names=('=HYPERLINK("http://x")', *pool.names[1:]))
    write_curve_table(replace(decision.selection, pool=hostile), tmp_path / "c.csv")
    with (tmp_path / "c.csv").open(newline="") as f:
        names = {r["model"] for r in csv.DictReader(f)}
    assert '\'=HYPERLINK("http://x")' in names
    assert not any(n.startswith("=") for n in names)


def test_a_model_name_with_dollars_is_drawn_as_text(tmp_path: Path, decision: Decision) -> None:
    from dataclasses import replace

    from tradeoff.choose.decision_curves import decision_curves_figure

    selection = decision.selection
    pool = selection.pool
    i = pool.names.index(selection.consensus_name)
    hostile = r"m$\frac{$x"  # matplotlib would parse it as mathematics, and fail
    names = (*pool.names[:i], hostile, *pool.names[i + 1 :])
    odd = replace(selection, pool=replace(pool, names=names), consensus_name=hostile)
    assert decision_curves_figure(odd, tmp_path / "c.png") is not None
    assert (tmp_path / "c.png").stat().st_size > 10_000


def test_a_participant_called_me_is_named_not_made_a_pronoun() -> None:
    """An id is a name: the threshold of a participant called "me" is "Participant me's",
    never "me's answers"."""
    person = two_answers_apart("me")
    selection = Fake(scenario=BREAST, stakeholders=[person], pool=Fake(frame=pd.DataFrame()))
    lines = threshold_lines(selection, 0)  # type: ignore[arg-type]
    assert lines[0].startswith("Participant me's answers put the threshold probability at ")
