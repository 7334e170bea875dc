"""The text ``tradeoff pick`` prints, every sentence of it made here in one call
(:func:`selection_text`): each person's pick, how sure, what would change it, their
weights; the regret matrix and the consensus. The command line only prints it."""

from __future__ import annotations

from tradeoff.ask.words import not_asked_words
from tradeoff.choose.change_words import change_lines
from tradeoff.choose.decision_curves import threshold_lines
from tradeoff.choose.robustness import CONSENSUS_LEAD
from tradeoff.choose.selection import Selection
from tradeoff.choose.words import (
    acceptability_words,
    chance_words,
    copa_differs,
    likeliest_words,
    noise_words,
    tuned_words,
    unfinished_words,
)
from tradeoff.text import Voice, percent

__all__ = ["selection_text"]


def selection_text(chosen: Selection) -> str:
    """The text ``tradeoff pick`` prints: picks, the regret matrix and the consensus."""
    names = chosen.pool.names
    lines = []
    for i, (s, rec, pick, _) in enumerate(chosen.rows()):
        sure = "" if rec.probability is None else f" ({chance_words(rec)})"
        lines += [f"{s.participant}: recommended {rec.name}{sure}"]
        person = Voice(s.participant)
        if likelier := likeliest_words(rec, names, voice=person.whose, person=person):
            lines.append(f"  {likelier}")
        if noise := noise_words(rec, person):
            lines.append(f"  {noise}")
        if not s.complete:
            lines.append(f"  {unfinished_words(s.answers)}")
        if rec.trade:
            lines.append(f"  {rec.trade[0].upper()}{rec.trade[1:]}.")
        table = chosen.acceptability[i] if chosen.acceptability else None
        if table is not None:
            lines.append(f"  {acceptability_words(table, names)}")
        if chosen.changes:
            lines.append("  What would change the pick:")
            lines += [f"    {line}" for line in change_lines(chosen.changes[i], names)]
        if s.consistency is not None and s.consistency.flagged:
            lines.append(f"  {s.consistency.sentence()}")
        if tuned := tuned_words(chosen, i):
            lines.append(f"  {tuned}")
        lines += [f"  {t}" for t in threshold_lines(chosen, i)]
        swing = s.swing_weights or s.weights
        shown = ", ".join(
            f"{n} {percent(w)}"
            if s.asked is None or s.asked[j]
            else f"{n} ({not_asked_words(Voice(s.participant))})"
            for j, (n, w) in enumerate(zip(s.names, swing, strict=True))
        )
        lines.append(f"  weights over each aspect's whole range: {shown}")
        if pick.selected.name != rec.name:
            lines.append(f"  {copa_differs(chosen, rec, pick)}")
            lines.append(f"    ({pick.explanation})")
    people = [s.participant for s in chosen.stakeholders]
    if len(people) > 1:
        first = max(len(n) for n in people) + 2
        cells = [max(len(n), 5) + 2 for n in people]
        lines += ["", "regret (row: whose metric; column: whose recommendation)"]
        lines.append(" " * first + "".join(f"{n:>{w}}" for n, w in zip(people, cells, strict=True)))
        for n, row in zip(people, chosen.regret, strict=True):
            values = "".join(f"{r:>{w}.3f}" for r, w in zip(row, cells, strict=True))
            lines.append(f"{n:<{first}}" + values)
    lines += [
        "",
        f"consensus: {chosen.consensus_name} (largest regret "
        f"{chosen.consensus_max_regret:.3f}; rule: {chosen.consensus_rule})",
        f"COPA with the averaged ω picks: {chosen.average_pick.selected.name}",
    ]
    if chosen.consensus_acceptability is not None:
        lines.append(
            acceptability_words(chosen.consensus_acceptability, names, lead=CONSENSUS_LEAD)
        )
    if chosen.consensus_changes:
        lines.append("What would change the consensus (that weight of everyone):")
        lines += [f"  {line}" for line in change_lines(chosen.consensus_changes, names)]
    return "\n".join(lines)
