"""A participant's id is a name, never a pronoun: a participant called "me" is
"participant me" where the printed selection and the report speak of them ("the highest
expected value of me's metric" and "within measurement noise for me" read as the reader's)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tradeoff.choose.decide import decide
from tradeoff.choose.recommend import NoiseTie
from tradeoff.choose.report import write_report
from tradeoff.cli.decide import format_selection
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
    printed = format_selection(selection)
    assert "value of participant me's metric" in printed
    assert "within measurement noise for participant me:" in printed
    _, md = write_report(replace(decision, selection=selection), tmp_path / "r", argv=["report"])
    report = md.read_text()
    assert "within measurement noise for participant me:" in report
    for text in (printed, report):
        assert " of me's" not in text and "noise for me:" not in text
