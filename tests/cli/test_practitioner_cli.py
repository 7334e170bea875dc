"""What a practitioner reads from the commands: ``pick`` names the pool file it read and
shows shares that add up to 100 %; ``session show`` the same, with every count per 1,000
said of its class; the decision curves' legend lies outside the axes, never over a
threshold's band; a pickled rule tuned to a person is said to need tradeoff to load."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tradeoff.cli import main

from ..conftest import ROOT
from .test_pick_sklearn import ESTIMATORS, measured_pool

pytestmark = pytest.mark.e2e

EXAMPLES = ROOT / "sessions" / "examples"
ONCOLOGIST = next((EXAMPLES / "example-oncologist").glob("*.jsonl"))
BOTH = sorted(str(p) for p in EXAMPLES.glob("*/*.jsonl"))


def test_pick_names_its_pool_and_its_shares_add_up_to_100(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["pick", "--session", *BOTH]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("Pool: ") and "breast-cancer.csv" in first, first
    assert "(the scenario's [pool]" in first
    lines = [x for x in out.splitlines() if "weights over each aspect's whole range:" in x]
    assert len(lines) == 2
    for line in lines:
        shares = [int(n) for n in re.findall(r" (\d+)%", line.partition(":")[2])]
        assert sum(shares) == 100, line  # the oncologist's read 61 + 37 + 2 + 1 = 101
    given = str(ROOT / "scenarios" / "pools" / "breast-cancer.csv")
    assert main(["pick", given, "--session", str(ONCOLOGIST)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"Pool: {given}"


def test_session_show_says_of_which_class_each_count_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["session", "show", str(ONCOLOGIST)]) == 0
    out = capsys.readouterr().out
    shares = [float(m) for m in re.findall(r"^\s+\S+\s+\S+\s+90% \[.*?\]\s+([\d.]+)%", out, re.M)]
    assert len(shares) == 4 and sum(shares) == pytest.approx(100.0)
    assert (
        "10 more cleared benign lumps per 1,000 benign lumps are worth as much to you as 6.0 "
        "more flagged malignant lumps per 1,000 malignant lumps." in out
    )
    assert not re.search(r"per 1,000(?! (malignant|benign) lumps)", out), out


def test_the_decision_curves_legend_covers_no_band(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from matplotlib.figure import Figure

    seen: list[tuple[Any, ...]] = []
    real = Figure.savefig

    def savefig(self: Figure, path: Any, *a: Any, **kw: Any) -> Any:
        if Path(str(path)).name == "decision-curves.png":
            (ax,) = self.axes
            self.canvas.draw()
            legend = ax.get_legend()
            seen.append((legend.get_window_extent(), ax.get_window_extent(), kw))
        return real(self, path, *a, **kw)

    monkeypatch.setattr(Figure, "savefig", savefig)
    assert main(["report", "--session", *BOTH, "--out", str(tmp_path / "r")]) == 0
    capsys.readouterr()
    ((legend, axes, kw),) = seen
    assert legend.y1 <= axes.y0  # below the axes: over no curve and no shaded interval
    assert kw.get("bbox_inches") == "tight"  # and kept in the picture


def test_a_pickled_tuned_rule_is_said_to_need_tradeoff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sklearn")
    (tmp_path / "models.py").write_text(ESTIMATORS)
    sk = ["--sklearn-estimators", str(tmp_path / "models.py"), "--sklearn-dataset", "breast_cancer"]
    for tuned in (True, False):
        folder = tmp_path / str(tuned)
        folder.mkdir()
        pool = measured_pool(folder, tuned)
        assert main(["pick", str(pool), "--session", str(ONCOLOGIST), *sk]) == 0
        out = capsys.readouterr().out
        said = "load it where tradeoff is installed" in out
        assert said is tuned, out
        (line,) = (folder / "pool.picks.jsonl").read_text().splitlines()
        assert ("tradeoff" in json.loads(line)["loads_with"]) is tuned
