"""A scenario's validation problems name their line in the file, as TOML syntax errors do
(``scenario check`` said only "classes[0].recall_range: …", with no line and a fix that
said nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def _problems(tmp_path: Path, old: str, new: str) -> tuple[list[str], list[str]]:
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
    assert old in text
    changed = text.replace(old, new, 1)
    path = tmp_path / "s.toml"
    path.write_text(changed)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    return [p.render() for p in info.value.problems], changed.splitlines()


def test_a_bad_recall_range_names_its_line_and_the_fix(tmp_path: Path) -> None:
    [said], lines = _problems(tmp_path, "recall_range = [0.8, 1.0]", "recall_range = [0.8, 1.3]")
    n = int(said.split(",", 1)[0].removeprefix("line "))
    assert lines[n - 1].startswith("recall_range = [0.8, 1.3]")
    assert said.startswith(f"line {n}, classes[0].recall_range: ")
    assert "the lower first, e.g. [0.8, 1.0]." in said and " Fix: " in said


def test_a_missing_key_names_its_table_s_header(tmp_path: Path) -> None:
    said, lines = _problems(tmp_path, 'kind = "cost"', 'kinds = "cost"')
    at = {}
    for problem in said:  # the unknown key on its line, the missing one at its table
        where = problem.split(": ", 1)[0]
        assert where.startswith("line ") and "attributes[0]" in where, said
        at[where.split(", ", 1)[1]] = lines[int(where.split(",", 1)[0][5:]) - 1].strip()
    assert at == {"attributes[0].kinds": 'kinds = "cost"', "attributes[0].kind": "[[attributes]]"}


def test_a_top_level_key_and_a_table_key(tmp_path: Path) -> None:
    [said], lines = _problems(tmp_path, "budget = 30", 'budget = "thirty"')
    n = int(said.split(",", 1)[0].removeprefix("line "))
    assert lines[n - 1] == 'budget = "thirty"' and "elicitation.budget" in said
