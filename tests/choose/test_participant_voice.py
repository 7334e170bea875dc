"""A participant's id is a name, never a pronoun: a participant called "me" is
"participant me" where the printed selection and the report speak of them ("the highest
expected value of me's metric" and "within measurement noise for me" read as the reader's)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tradeoff.choose.decide import decide
from tradeoff.choose.pick_text import selection_text
from tradeoff.choose.recommend import NoiseTie
from tradeoff.choose.report import summary, write_report
from tradeoff.choose.words import plain_summary
from tradeoff.text import YOU, Voice

pytestmark = pytest.mark.e2e

EXAMPLE = next(Path("sessions/examples/example-oncologist").glob("*.jsonl"))


def test_a_voice_names_a_participant() -> None:
    assert (YOU.whose, YOU.named) == ("your", "you")
    assert (Voice("me").whose, Voice("me").named) == ("participant me's", "participant me")


def test_a_participant_id_is_a_name_never_a_pronoun(tmp_path: Path) -> None:
    """A participant called "me": "participant me's metric", never "me's metric" nor
    "within measurement noise for me"."""
    decision = decide([EXAMPLE])
    rec = decision.recommendations[0]
    order = np.argsort(-np.asarray(rec.expected))
    p = np.zeros(len(rec.expected))
    p[rec.index], p[int(order[1])] = 0.28, 0.72  # another model is the likeliest best
    moved = replace(
        rec,
        p_best=tuple(float(x) for x in p),
        noise_tied=(NoiseTie(decision.pool.names[int(order[1])], 0.4, 0.02, 300),),
    )
    me = replace(decision.selection.stakeholders[0], participant="me")
    selection = replace(decision.selection, recommendations=[moved], stakeholders=[me])
    printed = selection_text(selection)
    assert "value of participant me's metric" in printed
    assert "within measurement noise for participant me:" in printed
    _, md = write_report(replace(decision, selection=selection), tmp_path / "r", argv=["report"])
    report = md.read_text()
    assert "within measurement noise for participant me:" in report
    for text in (printed, report):
        assert " of me's" not in text and "noise for me:" not in text


def test_a_group_that_agrees_is_told_so(tmp_path: Path) -> None:
    """Two people who pick the same model: the consensus is everyone's own pick, never
    "it costs no one more than 0% of the spread"; the report's scenario table names its
    rows aspects."""
    decision = decide([EXAMPLE])
    selection = decision.selection
    a = selection.stakeholders[0]
    b = replace(a, participant="b")
    rec = selection.recommendations[0]
    two = replace(
        selection,
        stakeholders=[a, b],
        recommendations=[rec, rec],
        picks=[selection.picks[0]] * 2,
        linear_picks=[selection.linear_picks[0]] * 2,
        regret=np.zeros((2, 2)),
        consensus_name=rec.name,
        consensus_max_regret=0.0,
        changes=[],
        consensus_changes=(),
        acceptability=[],
        consensus_acceptability=None,
    )
    said = summary(two)
    assert "everyone's own pick" in said and "0% of the spread" not in said
    lines = "\n".join(plain_summary(two))
    assert f"For the group: {rec.name}, everyone's own pick." in lines
    assert "0% of the spread" not in lines
    _, md = write_report(replace(decision, selection=selection), tmp_path / "r", argv=["report"])
    assert "| aspect | kind | shown as |" in md.read_text()
