"""The README's worked threshold example is what ``session show`` says of the example
oncologist: the quoted sentence word for word, and the per-unit weights it computes pₜ
from (the README had drifted to another version's 27% and 0.734)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tradeoff.cli import main

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_quotes_session_show(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quoted = re.search(r"\n((?:> .*\n)+)\nRead it as a clinician", readme)
    assert quoted is not None
    sentence = " ".join(line[2:] for line in quoted.group(1).splitlines())
    [session] = sorted((ROOT / "sessions" / "examples" / "example-oncologist").glob("*.jsonl"))
    assert main(["session", "show", str(session)]) == 0
    shown = capsys.readouterr().out
    assert sentence in " ".join(shown.split())
    per_unit = {m[0]: m[1] for m in re.findall(r"^  (malignant|benign)\s+([0-9.]+)", shown, re.M)}
    said = re.search(r"malignant\s+([0-9.]+) and benign ([0-9.]+) per unit", readme)
    assert said is not None and said.groups() == (per_unit["malignant"], per_unit["benign"])
