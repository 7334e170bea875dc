"""The codebook written beside the export's tables, named after the answers table
(``answers.csv``): ``answers.csv.codebook.csv`` (``table``, ``column``, ``unit``, ``meaning``:
:func:`codebook_csv`), ``answers.csv.codebook.md`` (the same as Markdown, every label and
name as text, :func:`tradeoff.text.markdown_text`: :func:`codebook_md`) and
``answers.csv.datapackage.json`` (a Frictionless Data Package, https://datapackage.org/:
:func:`datapackage`). What each column holds is :mod:`tradeoff.study.table_columns`'.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tradeoff.ask.scenario import Scenario
from tradeoff.study.table_columns import Column, slugify
from tradeoff.text import clean_text, markdown_text, spreadsheet_cell

__all__ = [
    "TEXT_CELLS",
    "Table",
    "codebook_csv",
    "codebook_md",
    "datapackage",
]


@dataclass(frozen=True)
class Table:
    """One table of an export, as its codebook and data package describe it.

    Parameters
    ----------
    name
        The table's name in the codebook and the data package (``answers``,
        ``participants``).
    path
        Its file name (beside the data package, which names it relative to itself).
    columns
        Its columns, in order.
    description
        What one row is.
    key
        The columns whose values name one row (the primary key).
    """

    name: str
    path: str
    columns: tuple[Column, ...]
    description: str
    key: tuple[str, ...]


#: What one row of each table is.
ANSWERS_ROW = (
    "One row per answer line of every session file of every participant who has not "
    "withdrawn (pilot sessions only when asked for). Option A is the question's left "
    "option, Option B its right one. Attention checks are not answers and have no row "
    "here (the participants table counts them)."
)
PARTICIPANTS_ROW = (
    "One row per participant of the study who has not withdrawn (withdrawn participants "
    "are left out entirely): their state, how many questions they answered, the model "
    "their answers pick and how sure that pick is, and how they came in (for a study "
    "recruiting through a panel, each panel entrant's quota group and the values of the "
    "link's kept parameters, such as the panel's study and session ids, in the "
    "quota_group and link_ columns). A participant erased at their request keeps a row, "
    "state 'erased', with nothing else in it."
)

#: How true/false and missing values are written in a CSV table, as the codebook says it.
CSV_VALUES = (
    "In a CSV table, true/false columns hold TRUE or FALSE (R's read.csv reads them as "
    "logical, pandas' read_csv as bool), and an empty cell is a missing value (NA). A "
    "Parquet table holds true/false and missing values natively."
)

#: Table Schema field types by :data:`Dtype`.
SCHEMA_TYPES = {
    "str": "string",
    "int": "integer",
    "Int64": "integer",
    "float": "number",
    "bool": "boolean",
}


def codebook_csv(tables: Iterable[Table]) -> str:
    """The codebook as CSV: ``table``, ``column``, ``unit``, ``meaning``, every text through
    :func:`tradeoff.text.spreadsheet_cell`.

    >>> t = Table("answers", "a.csv", (Column("x", "ms", "=time", "float"),), "", ("x",))
    >>> codebook_csv([t])
    "table,column,unit,meaning\\nanswers,x,ms,'=time\\n"
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "column", "unit", "meaning"])
    writer.writerows(
        [spreadsheet_cell(x) for x in (t.name, c.name, c.unit, c.meaning)]
        for t in tables
        for c in t.columns
    )
    return buffer.getvalue()


#: How text cells are written, as the codebook says it.
TEXT_CELLS = (
    "Text cells (ids, versions, names, labels) are written as given, with two exceptions "
    "that keep the table safe to open in a spreadsheet, in the CSV and the Parquet file "
    "alike: a text that starts with =, +, -, @, a tab or a carriage return, which a "
    "spreadsheet would evaluate as a formula, starts with an apostrophe ('), which "
    "spreadsheets show as text and do not evaluate (remove it to get the text as given); "
    "and control characters (line breaks and tabs included) are written as ?. Number "
    "columns hold numbers, negative ones included, never touched."
)


def codebook_md(scenario: Scenario, tables: Iterable[Table]) -> str:
    """The codebook as Markdown: one section per table, every label and name as text."""
    lines = [
        f"# Codebook: {markdown_text(scenario.title)}",
        "",
        markdown_text(TEXT_CELLS),
        "",
        markdown_text(CSV_VALUES),
        "",
    ]
    for t in tables:
        # a column's name is a slug (a-z, 0-9, _: see slugify), safe as a code span; units
        # and meanings carry the scenario's labels and names, text from a file
        lines += [
            f"## {markdown_text(t.name)}: {markdown_text(t.path)}",
            "",
            markdown_text(t.description),
            "",
            "| column | unit | meaning |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| `{c.name}` | {markdown_text(c.unit)} | {markdown_text(c.meaning)} |"
            for c in t.columns
        ]
        lines.append("")
    return "\n".join(lines)


def _field(column: Column, fmt: str) -> dict[str, Any]:
    """A column as a Table Schema field; a probability is constrained to 0–1 in a CSV
    table (not in Parquet: frictionless reads a Parquet null number as NaN, which a
    constraint refuses)."""
    field: dict[str, Any] = {
        "name": column.name,
        "type": SCHEMA_TYPES[column.dtype],
        "description": column.meaning,
        "unit": column.unit,
    }
    if column.dtype == "bool":
        field["trueValues"], field["falseValues"] = ["TRUE"], ["FALSE"]
    if column.unit == "probability" and fmt == "csv":
        field["constraints"] = {"minimum": 0, "maximum": 1}
    if column.values:
        field["constraints"] = {"enum": list(column.values)}
    return field


#: Each table format as a data package's resource gives it.
RESOURCE_FORMATS = {
    "csv": {"format": "csv", "mediatype": "text/csv", "encoding": "utf-8"},
    "parquet": {"format": "parquet", "mediatype": "application/vnd.apache.parquet"},
}


def datapackage(
    scenario: Scenario, tables: Sequence[Table], fmt: str, created: str
) -> dict[str, Any]:
    """The export's codebook as a Frictionless Data Package (``datapackage.json``): one
    resource per table, each with its Table Schema (every column's type, meaning and unit,
    ``missingValues`` (an empty cell), ``trueValues``/``falseValues`` (``TRUE``/``FALSE``),
    its primary key), and the answers' participant a foreign key into the participants
    table. The same descriptor describes a Parquet export (``format`` ``parquet``: its true/
    false and missing values are the file's own).

    >>> from tradeoff.ask.scenario import load_scenario
    >>> t = Table("participants", "a.participants.csv",
    ...           (Column("participant", "id", "Who.", "str"),), "A row.", ("participant",))
    >>> d = datapackage(load_scenario("scenarios/breast-cancer-triage.toml").scenario, [t],
    ...                 "csv", "2026-01-01T00:00:00Z")
    >>> d["resources"][0]["schema"]["primaryKey"], d["resources"][0]["format"]
    (['participant'], 'csv')
    """
    names = {t.name for t in tables}
    resources = []
    for t in tables:
        schema: dict[str, Any] = {
            "fields": [_field(c, fmt) for c in t.columns],
            "missingValues": [""],
            "primaryKey": list(t.key),
        }
        if t.name != "participants" and "participants" in names:
            schema["foreignKeys"] = [
                {
                    "fields": ["participant"],
                    "reference": {"resource": "participants", "fields": ["participant"]},
                }
            ]
        resources.append(
            {
                "name": t.name,
                "path": t.path,
                "profile": "tabular-data-resource",
                **RESOURCE_FORMATS[fmt],
                "description": t.description,
                "schema": schema,
            }
        )
    return {
        "name": (slugify(scenario.id).replace("_", "-") or "study") + "-answers",
        "title": f"Answers: {clean_text(scenario.title)}",
        "description": f"{TEXT_CELLS} {CSV_VALUES}",
        "created": created,
        "resources": resources,
    }
