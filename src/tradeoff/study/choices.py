"""Choices recorded elsewhere, as files: read them, predict held-out ones, fit each person.

``TRAIN.csv`` holds one recorded choice per row: ``person``, then ``A_<aspect>`` and
``B_<aspect>`` for every aspect of the scenario (each class's recall, then each attribute in
its natural unit, named as the scenario names them), then ``answer`` (``A``, ``B`` or
``can't tell``); other columns are ignored. ``HOLDOUT.csv`` has the same layout without
``answer``; its other columns are kept in the predictions. Every mistake is reported with
its line, column and fix (:class:`~tradeoff.errors.InputError`).

:func:`predict_file` learns each person's posterior from their rows of TRAIN
(:mod:`tradeoff.learn.choices`: the engine's strategy ``joint``, its one answer model) and
writes, for each row of HOLDOUT, ``p_A`` (the posterior predictive probability that the
person picks A over B, given that they pick one), ``p_cant_tell`` (that they would say
"can't tell" if they could) and ``train_choices`` (how many of their choices it learned
from; 0: the prior alone); with ``pooled`` each person starts from the population prior
learnt from the other people of TRAIN (:mod:`tradeoff.learn.pooled`). :func:`fit_file`
writes one session file per person, with their choices as recorded answers, which
``session show``, ``select`` and ``report`` read like any session (a replay applies the
answers as recorded).
"""

from __future__ import annotations

import csv
import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tradeoff.ask.population import scenario_priors
from tradeoff.ask.queries import Query
from tradeoff.ask.scenario import LoadedScenario, Scenario
from tradeoff.data import said_scenario
from tradeoff.errors import InputError, Problem, csv_records, read_user_file
from tradeoff.learn import Engine
from tradeoff.learn.base import Choice
from tradeoff.learn.choices import choice_spec, forced, learn_choices, pairs, predictive
from tradeoff.learn.pooled import fitted_base_share, pooled_predictive, population_prior
from tradeoff.learn.shares import Shares
from tradeoff.record.records import SourceRecord, valid_participant
from tradeoff.study.opening import start_session
from tradeoff.text import spreadsheet_cell

#: What the ``answer`` column may say (case and surrounding spaces aside).
ANSWERS = {"a": Choice.LEFT, "b": Choice.RIGHT, "can't tell": Choice.INDIFFERENT}
#: At most this many problems are listed (a file with a wrong layout has one per row).
MAX_PROBLEMS = 20


@dataclass(frozen=True)
class ChoiceRow:
    """One row: its line in the file, the person, both options' aspects, the answer
    (``None`` in a holdout file) and the row's cells as read (kept in the predictions)."""

    line: int
    person: str
    a: tuple[float, ...]
    b: tuple[float, ...]
    choice: Choice | None
    cells: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ChoiceTable:
    """A file of recorded choices, read and checked."""

    path: str
    header: tuple[str, ...]
    rows: tuple[ChoiceRow, ...]
    #: The SHA-256 of the file's bytes as read.
    sha256: str = ""

    def people(self) -> dict[str, list[ChoiceRow]]:
        """Each person's rows in file order, people in order of first appearance."""
        out: dict[str, list[ChoiceRow]] = {}
        for row in self.rows:
            out.setdefault(row.person, []).append(row)
        return out


def alike_lines(table: ChoiceTable) -> list[int]:
    """The lines of ``table`` whose two options are the same on every aspect: an answer
    there tells nothing of what matters to the person, only how they answer between
    equals (the engine reads it so, through its answer model)."""
    return [r.line for r in table.rows if r.a == r.b]


def worse_lines(table: ChoiceTable, scenario: Scenario) -> list[int]:
    """The lines of ``table`` whose answer chose the option that is no better on any aspect
    and worse on at least one (a recall lower, a cost higher, a reward lower): a slip, or
    something that mattered to the person is not in the file. The engine reads them as
    every answer (its answer model allows slips); many of them are worth a look.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/train-trips.toml").scenario
    >>> row = ChoiceRow(3, "p", (20.0, 60.0, 0.0, 1.0), (25.0, 60.0, 0.0, 1.0), Choice.RIGHT)
    >>> worse_lines(ChoiceTable("t.csv", (), (row,)), sc)
    [3]
    """
    signs = [1.0] * len(scenario.classes)
    signs += [-1.0 if a.kind == "cost" else 1.0 for a in scenario.attributes]
    out = []
    for r in table.rows:
        if r.choice not in (Choice.LEFT, Choice.RIGHT):
            continue
        chosen, other = (r.a, r.b) if r.choice == Choice.LEFT else (r.b, r.a)
        gains = [s * (c - o) for s, c, o in zip(signs, chosen, other, strict=True)]
        if all(g <= 0 for g in gains) and any(g < 0 for g in gains):
            out.append(r.line)
    return out


def aspect_columns(scenario: Scenario, side: str) -> list[str]:
    """The columns of one option: ``A_<aspect>`` (``side`` "A") for every aspect.

    >>> from tradeoff.ask.scenario import load_scenario
    >>> aspect_columns(load_scenario("scenarios/train-trips.toml").scenario, "B")
    ['B_price', 'B_time', 'B_changes', 'B_discomfort']
    """
    return [f"{side}_{name}" for name in scenario.weight_names]


def _bounds(scenario: Scenario, copy_of: str | None = None) -> list[tuple[float, float, str, str]]:
    """(low, high, what, fix) of every aspect: a recall in [0, 1], an attribute in its
    range, in its unit (a value far outside is most often written in another unit);
    ``copy_of``: the shipped scenario file a copy is made from."""
    recall = "write a recall as a share from 0 to 1 (92% is 0.92)."
    out = [(0.0, 1.0, f"a recall of {c.label}", recall) for c in scenario.classes]
    copy = (
        "your own copy of the scenario"
        if copy_of is None
        else f"your own copy of the scenario (copy {copy_of} and give --scenario the copy)"
    )
    for a in scenario.attributes:
        unit = f" in {a.unit}" if a.unit else ""
        fix = (
            f"write {a.name}{unit} within that range (check that the file writes it in the "
            f"same unit), or widen the range in {copy}."
        )
        out.append((a.range[0], a.range[1], f"the range of {a.name}{unit}", fix))
    return out


#: Columns the predictions add to a holdout file's own (which must not already hold them).
ADDED = ("p_A", "p_cant_tell", "train_choices")


def _check_header(
    path: str | Path,
    header: list[str],
    needed: list[str],
    scenario_path: str,
    *,
    answers: bool,
    line: int = 1,
) -> None:
    """Refuse a header the rows cannot be read by: an empty file, another separator, a
    missing column (with the closest column there is, for a misspelt one), a column that
    appears twice, or a holdout column the predictions would add again (``line``: the
    header's line, after any blank ones)."""
    at = f"line {line} (header)"
    if not any(header):
        raise InputError.single(
            path,
            at,
            "is empty: the file holds no header.",
            f"start the file with the header {', '.join(needed)}.",
        )
    for sep in (";", "\t", "|"):
        if len(header) == 1 and sep in header[0]:
            shown = "a tab" if sep == "\t" else repr(sep)
            raise InputError.single(
                path,
                at,
                f"separates its columns with {shown}, not commas.",
                "save the file as comma-separated values (CSV with ',').",
            )
    twice = sorted({c for c in header if c and header.count(c) > 1})
    if twice:
        raise InputError.single(
            path,
            at,
            f"names the column {', '.join(repr(c) for c in twice)} more than once.",
            "keep one column of each name (rename or remove the others).",
        )
    taken = [c for c in ADDED if c in header] if not answers else []
    if taken:
        raise InputError.single(
            path,
            at,
            f"has the column {', '.join(repr(c) for c in taken)}, which the predictions add.",
            "rename or remove it, so that the predictions' columns cannot be mistaken for it.",
        )
    missing = [c for c in needed if c not in header]
    if missing:
        spare = [c for c in header if c not in needed]
        near = {  # the same name in other capitals first, then a close one
            c: [x for x in spare if x.casefold() == c.casefold()][:1]
            or difflib.get_close_matches(c, spare, n=1, cutoff=0.75)
            for c in missing
        }
        said = ", ".join(
            f"{c!r} (perhaps the file's {near[c][0]!r})" if near[c] else repr(c) for c in missing
        )
        raise InputError.single(
            path,
            at,
            f"has no column {said}.",
            f"name the columns {', '.join(needed)} (the aspects as {scenario_path} names them).",
        )


def read_choices(
    path: str | Path, scenario: Scenario, *, answers: bool, scenario_path: str = "the scenario"
) -> ChoiceTable:
    """Read a file of recorded choices (``answers``: a TRAIN file, with ``answer``);
    ``scenario_path``: the scenario's file, named in the messages as
    :func:`~tradeoff.data.said_scenario` names it.

    Raises
    ------
    InputError
        Naming the file, and per problem the line and column and the fix: a missing
        column, an empty person, a value that is not a number or lies outside the
        scenario's range for its aspect, an answer that is not A, B or can't tell.
    """
    raw = read_user_file(path, "give the path of a CSV file of recorded choices.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError.single(
            path, f"byte {exc.start}", "is not UTF-8 text.", "save the file as UTF-8."
        ) from None
    records = csv_records(path, text)
    line, first = next(records, (1, []))
    header = [h.strip() for h in first]
    needed = ["person", *aspect_columns(scenario, "A"), *aspect_columns(scenario, "B")]
    needed += ["answer"] if answers else []
    named = said_scenario(scenario_path)
    _check_header(path, header, needed, named, answers=answers, line=line)
    where = {c: header.index(c) for c in needed}
    bounds = _bounds(scenario, None if named == scenario_path else scenario_path)
    problems: list[Problem] = []
    rows: list[ChoiceRow] = []
    for line, cells in records:
        if len(cells) != len(header):
            problems.append(
                Problem(
                    f"line {line}",
                    f"has {len(cells)} cells, the header {len(header)}.",
                    "give every row one cell per column (quote cells that hold commas).",
                )
            )
            continue
        person = cells[where["person"]].strip()
        if not valid_participant(person):
            problems.append(
                Problem(
                    f"line {line}, column 'person'",
                    f"{person!r} is not a usable person id.",
                    "use 1–64 letters, digits, '.', '-' or '_', starting with a letter or digit.",
                )
            )
        sides: list[tuple[float, ...]] = []
        for side in ("A", "B"):
            values = []
            columns = aspect_columns(scenario, side)
            for column, (low, high, what, fix) in zip(columns, bounds, strict=True):
                cell = cells[where[column]].strip()
                try:
                    value = float(cell)
                except ValueError:
                    value = float("nan")
                if not low <= value <= high:  # also NaN, inf and text
                    said = "is not a number" if value != value else f"lies outside {what}"
                    problems.append(
                        Problem(
                            f"line {line}, column {column!r}",
                            f"{cell!r} {said} ([{low:g}, {high:g}] in {named}).",
                            fix,
                        )
                    )
                values.append(value)
            sides.append(tuple(values))
        choice = None
        if answers:
            said = cells[where["answer"]].strip()
            choice = ANSWERS.get(said.lower().replace("’", "'"))
            if choice is None:
                problems.append(
                    Problem(
                        f"line {line}, column 'answer'",
                        f"{said!r} is not an answer.",
                        "write A, B or can't tell.",
                    )
                )
        kept = dict(zip(header, cells, strict=True))
        rows.append(ChoiceRow(line, person, sides[0], sides[1], choice, kept))
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise InputError.many(path, problems)
    if not rows:
        raise InputError.single(path, "", "holds no rows.", "give one row per recorded choice.")
    return ChoiceTable(str(path), tuple(header), tuple(rows), hashlib.sha256(raw).hexdigest())


def _recorded(
    scenario: Scenario, rows: Sequence[ChoiceRow], priors: Sequence[float]
) -> tuple[list[Query], list[Choice]]:
    """One person's recorded rows as the engine takes them: the questions and the choices."""
    queries = pairs(scenario, [r.a for r in rows], [r.b for r in rows], priors)
    return queries, [r.choice or Choice.INDIFFERENT for r in rows]


class Predicted(NamedTuple):
    """What :func:`predict_file` wrote: rows, the people who started from the population
    prior, and the engine's own prior's share of that prior (``None``: not pooled)."""

    rows: int
    pooled: int
    share: float | None


def predict_file(
    scenario: Scenario,
    train: ChoiceTable,
    holdout: ChoiceTable,
    out: str | Path,
    *,
    seed: int = 0,
    pooled: bool = False,
) -> Predicted:
    """Write the predictions of every row of ``holdout`` to ``out`` (a new file: an
    existing one is never overwritten); returns the number of rows written, of people
    who started from the population prior and the engine's own prior's share of it.
    ``pooled``:
    each person starts from the population prior learnt from the other people of
    ``train`` (:mod:`tradeoff.learn.pooled`, the engine's own prior at the share those
    people's choices give it: :func:`~tradeoff.learn.pooled.fitted_base_share`) instead of
    the engine's own prior; with nobody
    else in ``train`` there is no population to learn, and the person starts from the
    engine's own prior as without ``pooled``."""
    priors = scenario_priors(scenario)
    learned = train.people()
    # Each TRAIN person's choices, and their engine, worked out once.
    recorded = {person: _recorded(scenario, rows, priors) for person, rows in learned.items()}
    engines: dict[str, Engine] = {}

    def engine_of(person: str) -> Engine:
        if person not in engines:  # a person without choices: the engine's own prior
            engines[person] = learn_choices(scenario, *recorded.get(person, ([], [])), seed=seed)
        return engines[person]

    population = None
    if pooled:
        particles = {person: engine_of(person).particles() for person in learned}
        population = population_prior(
            scenario, {k: v for k, v in particles.items() if v is not None}, seed=seed
        )
        population = population.with_base_share(fitted_base_share(scenario, population, recorded))
    columns = [*holdout.header, *ADDED]
    lines: dict[int, list[str]] = {}
    borrowed = 0
    for person, rows in holdout.people().items():
        mine = learned.get(person, [])
        asked = pairs(scenario, [r.a for r in rows], [r.b for r in rows], priors)
        others = None if population is None else population.without(person)
        if others is not None and any(others.owners):
            p, _ = pooled_predictive(scenario, others, *recorded.get(person, ([], [])), asked)
            borrowed += 1
        else:  # unpooled, or nobody else in TRAIN to learn a population from
            p = predictive(engine_of(person), asked)
        for row, p_a, p_unsure in zip(rows, forced(p), p[:, 2], strict=True):
            cells = [spreadsheet_cell(row.cells[c]) for c in holdout.header]
            lines[row.line] = [*cells, f"{p_a:.6f}", f"{p_unsure:.6f}", str(len(mine))]
    _write_new(Path(out), [columns, *(lines[row.line] for row in holdout.rows)], "--out")
    share = None if population is None else population.base_share
    return Predicted(len(holdout.rows), borrowed, share)


def fit_file(
    loaded: LoadedScenario,
    train: ChoiceTable,
    sessions_dir: str | Path,
    *,
    seed: int = 0,
    summary: str | Path | None = None,
) -> list[Path]:
    """One finished session file per person of ``train`` under ``sessions_dir``
    (``<person>/<scenario>-<time>.jsonl``), their choices as recorded answers; the
    questions would aim at the scenario's pool, so P(best) is on it. Returns the files.

    With ``summary``, also a CSV of a row per person (:func:`summary_row`: their choices,
    each aspect's share of the aspects their choices informed with its 90 % range, empty
    for an aspect none informed, and their session file), refused before anything is
    written when the file exists."""
    people = train.people()
    base = Path(sessions_dir)
    if summary is not None and Path(summary).exists():
        raise InputError.single(
            summary,
            "",
            "already exists; nothing was written.",
            "give a new file name with --summary.",
        )
    there = {
        person: found[0]
        for person in people
        if (found := sorted((base / person).glob(f"{loaded.scenario.id}-*.jsonl")))
    }
    if there:
        first, file = next(iter(there.items()))
        others = f" and {len(there) - 1} more" if len(there) > 1 else ""
        raise InputError.single(
            base,
            f"person {first!r}{others}",
            f"already has a session of {loaded.scenario.id!r} here ({file}): fitting again "
            "would give them two, and every command that reads the folder would count "
            "their choices twice. Nothing was written.",
            "give a new folder with --sessions-dir (the sessions there are kept).",
        )
    written = []
    table = [summary_header(loaded.scenario)]
    source = SourceRecord(file=train.path, sha256=train.sha256) if train.sha256 else None
    for person, rows in people.items():
        # The recorded choices are all there is: the session is finished at the last one.
        spec = choice_spec(loaded.scenario).override(budget=len(rows))
        rec = start_session(loaded, person, sessions_dir, spec=spec, seed=seed, source=source)
        try:
            priors = [float(z) for z in rec.engine.space.priors]
            queries, _ = _recorded(loaded.scenario, rows, priors)
            for query, row in zip(queries, rows, strict=True):
                assert row.choice is not None
                rec.answer_given(query, row.choice, row.line)
            rec.finish()
            table.append(summary_row(person, len(rows), rec.engine.shares(), rec.path))
        finally:
            rec.close()
        written.append(rec.path)
    if summary is not None:
        _write_new(Path(summary), table, "--summary")
    return written


def summary_header(scenario: Scenario) -> list[str]:
    """The columns of :func:`fit_file`'s summary: ``person``, ``choices``, then for each
    aspect its share, and the 5 % and 95 % ends of its range, then ``session``."""
    parts = ("share", "share_low", "share_high")
    named = [f"{name}_{part}" for name in scenario.weight_names for part in parts]
    return ["person", "choices", *named, "session"]


def summary_row(person: str, choices: int, shares: Shares, session: Path) -> list[str]:
    """One person's row of the summary (shares as fractions to 4 decimals; empty for an
    aspect their choices never informed)."""
    cells = [spreadsheet_cell(person), str(choices)]
    for value, interval in zip(shares.values, shares.intervals, strict=True):
        low, high = interval if interval is not None and value is not None else ("", "")
        cells += ["" if value is None else f"{value:.4f}"]
        cells += [x if isinstance(x, str) else f"{x:.4f}" for x in (low, high)]
    return [*cells, spreadsheet_cell(str(session))]


def _write_new(target: Path, rows: list[list[str]], option: str) -> None:
    """``rows`` as a new CSV file (never over another; ``option`` names where to give
    another)."""
    try:
        with target.open("x", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
    except FileExistsError:
        raise InputError.single(
            target,
            "",
            "already exists; nothing was written.",
            f"give a new file name with {option}.",
        ) from None
    except OSError as exc:
        raise InputError.single(
            target, "", f"cannot be written ({exc.strerror}).", "choose another place."
        ) from None
