"""A shareable report of a decision: self-contained HTML and Markdown with PNG figures.

:func:`write_report` takes a :class:`~tradeoff.choose.decide.Decision` (sessions replayed, pool
ranked) and writes ``report.html`` (figures embedded, no external files), ``report.md`` and
the figures as PNG files beside them. Contents: the scenario; each stakeholder's weights with
90% intervals and trade-offs in words; the ranking with explanations; every stakeholder's
pick, the regret matrix and the consensus; figures (the Pareto front coloured by the α that
selects each model, as in paper 000 Figs. 1 and 4; the weights with intervals; the radar
chart when the pool has a ``system`` column); and the exact command and versions.

Every text taken from a file a person gave (the scenario's title, description and labels,
model names, participant ids, file names) is written into ``report.md`` through
:func:`tradeoff.text.markdown_text`, so it stays text: no HTML, link, image or table break;
``report.html`` is rendered by :func:`tradeoff.text.markdown_html` (no HTML passes).
"""

from __future__ import annotations

import base64
import hashlib
import html
import platform
import re
import shlex
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from tradeoff.ask.narrative import tradeoffs
from tradeoff.ask.words import not_asked_words, tradeoff_headings
from tradeoff.choose import copa
from tradeoff.choose.change_words import change_lines, change_sentences, nearest_changes
from tradeoff.choose.decide import Decision
from tradeoff.choose.decision_curves import (
    curves_section,
    decision_curves_figure,
    threshold_lines,
)
from tradeoff.choose.informed import person_shares
from tradeoff.choose.report_figures import (
    alpha_front_figure,
    pool_noun,
    radar_figure,
    weights_figure,
)
from tradeoff.choose.robustness import CONSENSUS_LEAD
from tradeoff.choose.selection import Selection
from tradeoff.choose.words import (
    acceptability_words,
    chance_words,
    copa_differs,
    likeliest_words,
    noise_words,
    omega_note,
    order_words,
    top_words,
    unfinished_words,
)
from tradeoff.stable import whole_percents
from tradeoff.text import (
    Voice,
    clean_text,
    markdown_html,
    markdown_table,
    markdown_text,
    percent,
)
from tradeoff.version import __version__

VERSIONS = ("numpy", "pandas", "scipy", "moocore", "matplotlib", "textual")


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_report(
    chosen: Decision, out_dir: str | Path, *, argv: Sequence[str]
) -> tuple[Path, Path]:
    """Write the report of a decision, report.html, report.md and the PNG figures, into
    ``out_dir`` (made if missing); the report ends with the command that made it,
    ``tradeoff`` and ``argv`` quoted for a shell. The one report writer of ``tradeoff
    report``, ``tradeoff study report`` and ``tradeoff select --mlflow-model``."""
    selection, scenario = chosen.selection, chosen.scenario
    command = "tradeoff " + " ".join(shlex.quote(a) for a in argv)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures: list[tuple[str, str]] = []
    for name, make in (
        ("pareto-alpha.png", alpha_front_figure),
        ("weights.png", weights_figure),
        ("radar.png", radar_figure),
        ("decision-curves.png", decision_curves_figure),
    ):
        caption = make(selection, out / name)
        if caption:
            figures.append((name, caption))
    pool = selection.pool
    md: list[str] = [f"# Decision report: {markdown_text(scenario.title)}", ""]
    md += [
        f"Generated {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')} by tradeoff {__version__}.",
        "",
        "## Summary",
        "",
        summary(selection, chosen.left_out),
        "",
        "## Scenario",
        "",
        # the scenario file's paragraphs, each as text (the one rule for text from files)
        "\n\n".join(
            markdown_text(paragraph)
            for paragraph in re.split(r"\n\s*\n", scenario.description.strip())
        ),
        "",
        f"(The scenario's own description. This report weighs the {pool.n} "
        f"{pool_noun(selection, pool.n != 1)} of {markdown_text(chosen.pool_path)}.)",
        "",
    ]
    md += [
        markdown_table(
            ("aspect", "kind", "shown as"),
            [(c.name, "class", f"{c.verb} N of 1,000 {c.label}") for c in scenario.classes]
            + [(a.name, a.kind, a.render(sum(a.range) / 2)) for a in scenario.attributes],
        ),
        "",
    ]
    md += ["## Stakeholders", ""]
    for s, rec, pick, lin in selection.rows():
        md += [
            f"### {markdown_text(s.participant)}",
            "",
            f"{s.answers} answers ({markdown_text(Path(s.path).name)}).",
            *[f"\n**Warning:** {markdown_text(w)}" for w in s.warnings],
            "",
        ]
        sure = (
            ""
            if rec.probability is None
            else f" ({markdown_text(chance_words(rec, voice='these'))})"
        )
        md += [
            f"**Recommended: {markdown_text(rec.name)}**{sure}, the {pool_noun(selection, False)} "
            "these answers make best."
        ]
        person = Voice(s.participant)
        if likelier := likeliest_words(rec, selection.pool.names, voice="their", person=person):
            md += [markdown_text(likelier)]
        if noise := noise_words(rec, person):
            md += [markdown_text(noise)]
        if outside := selection.outside_ranges(rec):
            md += [markdown_text(outside)]
        if rec.trade:
            md += [markdown_text(f"{rec.trade[0].upper()}{rec.trade[1:]}.")]
        md += [""]
        if not s.complete:
            md += [f"**{markdown_text(unfinished_words(s.answers))}**", ""]
        if s.consistency is not None and s.consistency.flagged:
            md += [f"**{markdown_text(s.consistency.sentence())}**", ""]
        voice = person  # the section is headed by their name, and speaks of them throughout
        shares = person_shares(scenario, s)  # of the asked aspects, as on the review
        aspects = [f"{c.outcome} {c.label}" for c in scenario.classes] + [
            a.name for a in scenario.attributes
        ]
        rows = []
        omegas, parts = whole_percents(pick.weights), whole_percents(shares.values)  # sum: 100 %
        for i, aspect in enumerate(aspects):
            omega, share, interval = omegas[i] or "", parts[i], shares.intervals[i]
            if share is None:  # the starting guess: no number
                rows.append((aspect, not_asked_words(voice), "", omega))
                continue
            iv = "" if interval is None else f"{percent(interval[0])} – {percent(interval[1])}"
            rows.append((aspect, share, iv, omega))
        headers = ("aspect", "weight over its whole range", "90% interval", "COPA ω")
        md += [markdown_table(headers, rows), ""]
        md += [
            "The weights say how much each aspect matters over its whole range in the "
            "scenario (as on the review screen)."
            + (
                " An aspect no question asked about shows no weight: its number would be "
                "only the starting guess; the others are shares of the asked aspects and "
                "add up to 100% among them."
                if s.asked is not None and not all(s.asked)
                else ""
            ),
            "",
        ]
        i = selection.stakeholders.index(s)
        table = selection.acceptability[i] if selection.acceptability else None
        # sentences that name models or aspects are text as a whole (names from files)
        if table is not None:
            md += [f"- {markdown_text(acceptability_words(table, pool.names))}"]
        if selection.changes:
            changes = change_lines(selection.changes[i], pool.names)
            md += [f"- {markdown_text(line)}" for line in changes]
        md += [f"- {markdown_text(t)}" for t in threshold_lines(selection, i)] + [""]
        said = tradeoffs(scenario, s.weights, s.priors, s.draws, asked=s.asked, voice=voice)
        for heading, settled in zip(tradeoff_headings(voice), (True, False), strict=True):
            group = [t.text for t in said if t.settled is settled]
            if group:
                md += [f"#### {heading}", ""] + [f"- {markdown_text(t)}" for t in group] + [""]
        md += [
            "#### For the practitioner: COPA's pick",
            "",
            markdown_text(
                (
                    copa_differs(selection, rec, pick)
                    if pick.selected.name != rec.name
                    else "COPA's ranking (for the practitioner) picks the same "
                    f"{pool_noun(selection, False)}, {rec.name}."
                )
                + f" (The point estimate's own pick: {lin}.)"
            ),
            "",
            f"> {markdown_text(pick.explanation)}",
            "",
        ]
    md += curves_section(selection, out)
    names = [s.participant for s in selection.stakeholders]
    md += [
        "## Regret and consensus",
        "",
        "Regret of using one stakeholder's recommendation (column) in another's own expected "
        "linear metric (row), relative to the spread of that metric over the pool:",
        "",
    ]
    md += [
        markdown_table(
            ("", *names),
            [
                (n, *[f"{r:.3f}" for r in row])
                for n, row in zip(names, selection.regret, strict=True)
            ],
        ),
        "",
    ]
    md += [
        f"**Consensus: {markdown_text(selection.consensus_name)}** — "
        + markdown_text(
            f"rule: {selection.consensus_rule}; its largest regret is "
            f"{selection.consensus_max_regret:.3f}. COPA with the averaged ω picks "
            f"{selection.average_pick.selected.name}."
        ),
        "",
    ]
    md += [
        "## For the practitioner: COPA's ranking (averaged ω, p = ∞)",
        "",
        markdown_text(
            f"{omega_note(selection)} {order_words(scores=False)} "
            f"{top_words(pool_noun(selection, False))}"
        ),
        "",
    ]
    cols, ranking = pool.columns, selection.average_pick.ranking
    ties = copa.tied([r.score for r in ranking])  # "3=": a place the tie-break sets
    md += [
        markdown_table(
            ("#", pool_noun(selection, False), *(pool.labels[c] for c in cols), "Pareto"),
            [
                (
                    f"{i}=" if tie else i,
                    r.name,
                    *[f"{r.values[c]:.4g} (top-{copa.top_percent(r.u[c])}%)" for c in cols],
                    "yes" if r.pareto else "",
                )
                for i, (r, tie) in enumerate(zip(ranking, ties, strict=True), 1)
            ],
        ),
        "",
    ]
    md += [f"> {markdown_text(selection.average_pick.explanation)}", "", "## Figures", ""]
    md += [f"![{cap}]({name})\n\n*{cap}*\n" for name, cap in figures]
    versions = [f"tradeoff {__version__}", f"Python {platform.python_version()}"]
    for pkg in VERSIONS:
        try:
            versions.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            continue
    md += [
        "## Reproduce",
        "",
        "```sh",
        clean_text(command),  # one line: nothing in it can close the fence
        "```",
        "",
        "Versions: " + ", ".join(versions) + ".",
        "",
        markdown_table(
            ("input", "sha256"),
            [(pool.source, _sha256(pool.source))]
            + [(s.path, _sha256(s.path)) for s in selection.stakeholders],
        ),
        "",
    ]
    md_text = "\n".join(md)
    md_path = out / "report.md"
    md_path.write_text(md_text, encoding="utf-8")
    html_path = out / "report.html"
    html_path.write_text(_html(md_text, out, figures, scenario.title), encoding="utf-8")
    return html_path, md_path


#: The report's Content-Security-Policy: it loads nothing from anywhere (its figures are
#: data URIs, its style inline), so opening it tells no one that it was opened.
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)


def _html(md_text: str, out: Path, figures: list[tuple[str, str]], title: str) -> str:
    """The Markdown report as one self-contained HTML page, rendered by
    :func:`tradeoff.text.markdown_html` (the project's one renderer): raw HTML is shown as
    text, never passed through; an image that is not one of the report's figures is shown as
    its words and a link as its words and address; :data:`CSP` forbids loading anything; the
    figures are embedded as data URIs so the file stands alone."""
    images = {
        name: "data:image/png;base64," + base64.b64encode((out / name).read_bytes()).decode()
        for name, _ in figures
    }
    body = markdown_html(md_text, images=images)
    style = (
        "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
        "line-height:1.45;color:#1d232a}table{border-collapse:collapse;margin:.5rem 0;"
        "font-size:.9rem}td,th{border:1px solid #ccd;padding:.2rem .5rem;text-align:left}"
        "th{background:#eef1f5}blockquote{border-left:4px solid #8ab;margin:.5rem 0;"
        "padding:.2rem .8rem;color:#345}img{max-width:100%}pre{background:#f4f6f8;"
        "padding:.6rem;white-space:pre-wrap;overflow-wrap:anywhere}"
        "code{overflow-wrap:anywhere}.summary{font-size:1.05rem}"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{html.escape(clean_text(title))}</title><style>{style}</style></head><body>\n"
        + body
        + "</body></html>\n"
    )


def not_in_report(selection: Selection, left_out: Sequence[tuple[str, str]]) -> str:
    """The sentence naming who is not in the report and why (``left_out``: participant and
    reason, as :attr:`~tradeoff.choose.decide.Decision.left_out` gives them; those who are
    in the report, left out of the consensus only, are said elsewhere), or ``""``; as
    Markdown, every id and reason as text.

    >>> from types import SimpleNamespace as S
    >>> sel = S(stakeholders=[S(participant="p01")])
    >>> not_in_report(sel, [("p02", "unfinished after 3 answers"), ("p03", "withdrawn")])
    'Not in this report: p02 (unfinished after 3 answers), p03 (withdrawn).'
    >>> not_in_report(sel, [("p01", "flagged as inconsistent and excluded")])
    ''
    """
    inside = {s.participant for s in selection.stakeholders}
    named = [f"{pid} ({why})" for pid, why in left_out if pid not in inside]
    if not named:
        return ""
    return markdown_text("Not in this report: " + ", ".join(named) + ".")


def summary(selection: Selection, left_out: Sequence[tuple[str, str]] = ()) -> str:
    """The report's opening paragraph: the recommendation, how far the people agree, who
    was left out and why (``left_out``: participants not in the report, with the reason;
    those whose answers failed the consistency check and were left out of the consensus),
    how sure the pick is and the nearest change that would alter it."""
    people = selection.stakeholders
    absent = not_in_report(selection, left_out)
    raw = selection.pool.names
    names = [markdown_text(name) for name in raw]  # names from a file are text, never a link
    n = selection.pool.n
    if len(people) == 1:
        s, rec = people[0], selection.recommendations[0]
        sure = "" if rec.probability is None else f"; {markdown_text(chance_words(rec))}"
        text = (
            f"**Recommendation: {names[rec.index]}**, of {n} candidate {pool_noun(selection)}, "
            f"for {markdown_text(s.participant)} "
            f"({s.answers} answers): the {pool_noun(selection, False)} their answers make "
            f"best{sure}."
        )
        person = Voice(s.participant)
        if likelier := likeliest_words(rec, raw, voice="their", person=person):
            text += f" {markdown_text(likelier)}"
        if noise := noise_words(rec, person):
            text += f" {markdown_text(noise)}"
        table = selection.acceptability[0] if selection.acceptability else None
        if table is not None:
            text += f" {markdown_text(acceptability_words(table, raw))}"
        if s.consistency is not None and s.consistency.flagged:
            text += f" {markdown_text(s.consistency.sentence())}"
        if not s.complete:
            text += f" **{markdown_text(unfinished_words(s.answers))}**"
        changes = selection.changes[0] if selection.changes else ()
    else:
        picks = [names[r.index] for r in selection.recommendations]
        agree = (
            f"{'both' if len(people) == 2 else f'all {len(people)}'} recommend {picks[0]}"
            if len(set(picks)) == 1
            else "their answers recommend "
            + ", ".join(
                f"{names[r.index]} ({markdown_text(s.participant)})"
                for s, r in zip(people, selection.recommendations, strict=True)
            )
        )
        own = all(raw[r.index] == selection.consensus_name for r in selection.recommendations)
        regret = (
            "everyone's own pick, so no one gives anything up."
            if own
            else f"the {pool_noun(selection, False)} whose largest regret over everyone is "
            "smallest: it costs no one "
            f"more than {selection.consensus_max_regret:.0%} of the spread of their own "
            "metric over the candidates."
        )
        text = (
            f"**Recommendation for the group: {markdown_text(selection.consensus_name)}**, of {n} "
            f"candidate {pool_noun(selection)}. {len(people)} people answered; {agree}. The "
            "consensus is "
            f"{regret}"
        )
        if selection.consensus_acceptability is not None:
            text += " " + markdown_text(
                acceptability_words(selection.consensus_acceptability, raw, lead=CONSENSUS_LEAD)
            )
        unfinished = [
            unfinished_words(s.answers, s.participant, "their pick, and so the group's, is")
            for s in people
            if not s.complete
        ]
        if unfinished:
            text += " **" + markdown_text(" ".join(unfinished)) + "**"
        changes = selection.consensus_changes
    flagged = [s for s in people if s.consistency is not None and s.consistency.flagged]
    if selection.excluded:
        text += (
            f" Left out of the consensus: {markdown_text(', '.join(selection.excluded))}, whose "
            "answers "
            "failed the consistency check."
        )
    flagged_words = markdown_text(", ".join(s.participant for s in flagged))
    if absent:
        text += f" {absent}"
        if flagged and not selection.excluded:
            text += f" Answers flagged as inconsistent, but counted: {flagged_words}."
    elif len(people) > 1 and not selection.excluded:
        text += " Nobody was left out" + (
            f" (answers flagged as inconsistent, but counted: {flagged_words})." if flagged else "."
        )
    near = nearest_changes(changes)
    if near:
        # the nearest, with every aspect already in doubt said together (as the list says)
        first = change_sentences(changes, raw, 1)[0]
        text += f" What would change it: {markdown_text(first)}"
    return text
