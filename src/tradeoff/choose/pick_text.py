"""The text ``tradeoff pick`` prints, every sentence of it made here in one call
(:func:`selection_text`): each person's pick, how sure, what would change it, their
weights; the regret matrix and the consensus. The command line only prints it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tradeoff.ask.words import not_asked_words
from tradeoff.choose.change_words import change_lines
from tradeoff.choose.decision_curves import threshold_lines
from tradeoff.choose.robustness import CONSENSUS_LEAD
from tradeoff.choose.selection import Selection
from tradeoff.choose.stakeholder import shown_weights
from tradeoff.choose.words import (
    acceptability_words,
    chance_words,
    copa_differs,
    likeliest_words,
    noise_words,
    tuned_words,
    unfinished_words,
)
from tradeoff.data import shipped_scenarios
from tradeoff.learn.shares import left_out_words
from tradeoff.stable import whole_percents
from tradeoff.text import Voice

__all__ = ["pool_line", "regret_lines", "selection_text"]


def pool_line(pool_path: str, given: bool) -> str:
    """The one line that names the pool file ``pick`` read: the one given, or the one the
    scenario's ``[pool]`` names, said to be the shipped copy when it is (a shipped
    scenario given by its id reads its own pool, not a copy edited elsewhere).

    >>> pool_line("tuned.csv", given=True)
    'Pool: tuned.csv'
    >>> pool_line("scenarios/pools/breast-cancer.csv", given=False)
    "Pool: scenarios/pools/breast-cancer.csv (the scenario's [pool])"
    """
    if given:
        return f"Pool: {pool_path}"
    # By the path as read (not resolved): a checkout's shipped folder may link to its scenarios.
    shipped = Path(pool_path).absolute().is_relative_to(shipped_scenarios().absolute())
    if shipped:
        return (
            f"Pool: {pool_path} (the scenario's [pool], as shipped with tradeoff; give POOL "
            "to pick from another file)"
        )
    return f"Pool: {pool_path} (the scenario's [pool])"


def selection_text(
    chosen: Selection, pool_path: str | None = None, *, pool_given: bool = True
) -> str:
    """The text ``tradeoff pick`` prints: the pool file read (:func:`pool_line`, when
    ``pool_path`` is given; ``pool_given``: whether the command was given it), then the
    picks, the regret matrix and the consensus."""
    names = chosen.pool.names
    lines = [] if pool_path is None else [pool_line(pool_path, pool_given)]
    for i, (s, rec, pick, _) in enumerate(chosen.rows()):
        sure = "" if rec.probability is None else f" ({chance_words(rec)})"
        lines += [f"{s.participant}: recommended {rec.name}{sure}"]
        lines += [f"  warning: {w}" for w in s.warnings]
        person = Voice(s.participant)
        if likelier := likeliest_words(rec, names, voice=person.whose, person=person):
            lines.append(f"  {likelier}")
        if noise := noise_words(rec, person):
            lines.append(f"  {noise}")
        if outside := chosen.outside_ranges(rec):
            lines.append(f"  {outside}")
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
        # Shares of the aspects the answers informed, as the review and the report show
        # them: an unasked aspect's starting guess is not counted in the others' shares.
        # Parts of one whole, rounded so that they add up to 100 %.
        swing = whole_percents(shown_weights(s))
        shown = ", ".join(
            f"{n} {w}"
            if w is not None and (s.asked is None or s.asked[j])
            else f"{n} ({not_asked_words(Voice(s.participant))})"
            for j, (n, w) in enumerate(zip(s.names, swing, strict=True))
        )
        lines.append(f"  weights over each aspect's whole range: {shown}")
        if s.shares is not None and None in s.shares.values:  # an aspect not asked
            lines.append(f"    {left_out_words(s.shares, s.names, person)}")
        if pick.selected.name != rec.name:
            lines.append(f"  {copa_differs(chosen, rec, pick)}")
            lines.append(f"    ({pick.explanation})")
    people = [s.participant for s in chosen.stakeholders]
    if len(people) > 1:
        lines += ["", "regret (row: whose metric; column: whose recommendation)"]
        lines += regret_lines(people, chosen.regret)
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
    if chosen.pool.uncertainty is None and any(r.p_best for r in chosen.recommendations):
        # Said once: "over 99%" between two recalls one case apart on a small test set
        # would read as a claim about the measurements too.
        lines += [
            "",
            "The chances count how sure the answers are of the weights. The pool's numbers "
            "are taken as exact: it gives no test-set sizes or standard errors (columns "
            "<column>_cases or <column>_se), so how precisely each "
            f"{'model' if chosen.recommendations[0].classes else 'option'} was measured is "
            "not counted.",
        ]
    return "\n".join(lines)


#: The regret matrix's lines are at most this wide: wider, its columns go on in a block
#: below (as a printed data frame's do), so an 80-column terminal breaks no row.
MATRIX_WIDTH = 80


def regret_lines(people: list[str], regret: Sequence[Sequence[float]]) -> list[str]:
    """The regret matrix, a row per person, its columns in blocks of at most
    :data:`MATRIX_WIDTH` characters a line.

    >>> for line in regret_lines(["ann", "bo"], [[0.0, 0.25], [0.5, 0.0]]):
    ...     print(line)
             ann     bo
    ann    0.000  0.250
    bo     0.500  0.000
    >>> names = [f"p{i}" for i in range(1, 13)]
    >>> lines = regret_lines(names, [[0.0] * 12] * 12)
    >>> max(len(line) for line in lines) <= MATRIX_WIDTH, len(lines)
    (True, 27)
    """
    first = max(len(n) for n in people) + 2
    cells = [max(len(n), 5) + 2 for n in people]
    blocks: list[list[int]] = [[]]
    width = first
    for j, w in enumerate(cells):
        if blocks[-1] and width + w > MATRIX_WIDTH:
            blocks.append([])
            width = first
        blocks[-1].append(j)
        width += w
    lines: list[str] = []
    for b, block in enumerate(blocks):
        if b:
            lines.append("")
        lines.append(" " * first + "".join(f"{people[j]:>{cells[j]}}" for j in block))
        for n, row in zip(people, regret, strict=True):
            lines.append(f"{n:<{first}}" + "".join(f"{row[j]:>{cells[j]}.3f}" for j in block))
    return lines
