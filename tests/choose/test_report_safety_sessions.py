"""Hostile model names stay text in a report written from people's sessions: recorded, decided,
written as HTML and Markdown (e2e: whole sessions and a report; the report's other safety
tests are in test_report_safety.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.report import CSP
from tradeoff.cli import main

from .test_report_safety import HOSTILE
from .test_selection import POOL, SWINGS, natural, record

pytestmark = pytest.mark.e2e


def test_hostile_model_names_stay_text(tmp_path: Path) -> None:
    loaded = load_scenario(POOL.parents[1] / "breast-cancer-triage.toml")
    sessions = [
        record(loaded, tmp_path / "s", f"p{i}", natural(loaded, s), seed=i, budget=8)
        for i, s in enumerate(SWINGS[:2])
    ]
    frame = pd.read_csv(POOL)
    # the models every person is likely to see near the top get the hostile names
    for i, name in enumerate(HOSTILE):
        frame.loc[i * 5, "model"] = name
    frame = frame.iloc[::1]
    pool = tmp_path / "pool.csv"
    frame.to_csv(pool, index=False)
    out = tmp_path / "report"
    argv = ["report", str(pool), *[a for p in sessions for a in ("--session", str(p))]]
    assert main([*argv, "--out", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert f'content="{CSP}"' in page and "default-src 'none'" in CSP
    # no attribute anywhere points outside the page
    assert re.findall(r'(?:src|href)="(?!data:|#)[^"]*"', page) == []
    assert '<img src="http' not in page and "<a " not in page
    md = (out / "report.md").read_text()
    shown = [name for name in HOSTILE if name.split("(")[0][:6].strip("<![") in md]
    assert shown, "the hostile names should appear in the report (as text)"
    assert "](http://evil.example" not in md.replace("\\](", "")  # no live Markdown link
