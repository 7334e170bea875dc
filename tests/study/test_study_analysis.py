"""A study as its analyst meets it, end to end: with one complete, one unfinished and one
withdrawn participant, the report's summary names the two left out and why (in report.html
and report.md, not only on stderr), and the README's "Analysing the answers" lines, read
from the README itself, run as written on the export: in R (``Rscript``, skipped when it is
missing) and in Python with pandas, and agree with each other."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tradeoff.cli import main
from tradeoff.record.records import ConsentRecord, EntryRecord
from tradeoff.study.folder import create_study, load_study

from ..conftest import ROOT
from ..participants import take_part

pytestmark = pytest.mark.e2e

ENTRY = EntryRecord(type="entry", via="panel", panel_id="P1", pilot=False)
CONSENT = ConsentRecord(type="consent", version="2026-01", text_sha256="ab" * 32, language="en")


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """p01 complete (with consent recorded), p02 unfinished after 3 answers, p03 complete
    and then withdrawn."""
    root = tmp_path_factory.mktemp("analysis")
    scenario = ROOT / "scenarios" / "breast-cancer-triage.toml"
    create_study(scenario, ["p01", "p02", "p03"], root / "s")
    study = load_study(root / "s")
    for pid, answers, seed in (("p01", None, 0), ("p02", 3, 1), ("p03", None, 2)):
        take_part(
            study,
            pid,
            answers,
            seed=seed,
            entry=ENTRY.model_copy(update={"panel_id": f"P-{pid}"}),
            consent=CONSENT if pid == "p01" else None,
            finish=answers is None,
            response_ms=lambda given: 900.0 + 100 * given,
        )
    assert main(["study", "withdraw", str(root / "s"), "p03"]) == 0
    return root / "s"


def test_the_report_names_who_it_leaves_out_and_why(
    study_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["study", "report", str(study_dir), "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    written = json.loads(captured.out)
    assert "p02 is not in the report: unfinished after 3 answers" in captured.err
    assert "p03 is not in the report: withdrawn" in captured.err
    md = Path(written["markdown"]).read_text(encoding="utf-8")
    summary = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    found = re.search(
        r"Not in this report: p02 \(unfinished after 3 answers\), p03 \(withdrawn ([^)]*)\)\.",
        summary,
    )
    assert found is not None, summary
    page = html.unescape(re.sub(r"<[^>]+>", "", Path(written["html"]).read_text(encoding="utf-8")))
    assert found.group(0) in page
    # the one in the report is named as the recommendation's person, not as left out
    assert "### p01" in md and "### p02" not in md and "### p03" not in md


def test_the_report_counts_a_pilot_only_when_asked(
    study_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "s"
    shutil.copytree(study_dir, copy)
    take_part(
        load_study(copy),
        "p02",
        seed=5,
        entry=ENTRY.model_copy(update={"pilot": True}),
        finish=True,
        weights=(0.2, 0.2, 0.3, 0.3),
    )
    out = tmp_path / "r1"
    assert main(["study", "report", str(copy), "--out", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "p02 (unfinished after 3 answers)" in md
    assert "### p02" not in md
    out = tmp_path / "r2"
    assert main(["study", "report", str(copy), "--out", str(out), "--include-pilot"]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "### p02" in md and "--include-pilot" in md  # and the command to repeat it
    capsys.readouterr()


def _readme_block(language: str) -> str:
    """The code block in ``language`` of the README's "Analysing the answers"."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Analysing the answers", 1)[1].split("\n## ", 1)[0]
    found = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert found is not None, f"no {language} block in the README's analysis section"
    return found.group(1)


@pytest.fixture(scope="module")
def exported(study_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    assert main(["study", "export", str(study_dir), "--out", str(out / "answers.csv")]) == 0
    return out


def test_the_readme_pandas_lines_run_on_the_export(
    exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = _readme_block("python")
    namespace: dict[str, object] = {}
    printed = io.StringIO()
    monkeypatch.chdir(exported)
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), namespace)
    answers = namespace["answers"]
    both = namespace["both"]
    assert isinstance(answers, pd.DataFrame) and isinstance(both, pd.DataFrame)
    assert answers["undone"].dtype == bool
    assert set(both["participant"]) == {"p01", "p02"}  # p03 withdrew
    assert len(both) == int((~answers["undone"]).sum())
    assert set(both["state"]) == {"complete", "unfinished"}
    assert "complete" in printed.getvalue()


def test_the_readme_r_lines_run_on_the_export_and_agree_with_pandas(exported: Path) -> None:
    rscript = shutil.which("Rscript")
    if rscript is None:
        pytest.skip("Rscript is not installed (Debian: apt-get install r-base-core)")
    checks = (
        "stopifnot(is.logical(answers$undone), is.logical(answers$is_repeat))\n"
        "stopifnot(is.logical(participants$completed), is.logical(participants$pilot))\n"
        "stopifnot(is.numeric(answers$response_ms), is.numeric(participants$p_best))\n"
        'cat("check:counted", nrow(counted), "\\n")\n'
        'cat("check:merged", nrow(both), "\\n")\n'
        'cat("check:complete", sum(participants$completed), "\\n")\n'
        'p01 <- both$response_ms[both$participant == "p01"]\n'
        'cat("check:median", median(p01, na.rm = TRUE), "\\n")\n'
        # an empty text cell is missing (the codebook says so), not the text ""
        'empty <- function(t) sum(sapply(t, function(x) sum(x == "", na.rm = TRUE)))\n'
        'cat("check:empty", empty(answers) + empty(participants), "\\n")\n'
        'cat("check:missing", sum(is.na(answers)) + sum(is.na(participants)), "\\n")\n'
    )
    done = subprocess.run(
        [rscript, "--vanilla", "-e", _readme_block("r") + checks],
        cwd=exported,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = {
        line.split()[0].removeprefix("check:"): float(line.split()[1])
        for line in done.stdout.splitlines()
        if line.startswith("check:")
    }
    answers = pd.read_csv(exported / "answers.csv")
    people = pd.read_csv(exported / "answers.participants.csv")
    counted = answers[~answers["undone"]]
    assert said["counted"] == len(counted) == said["merged"]
    assert said["complete"] == people["completed"].sum() == 1
    p01 = counted[counted["participant"] == "p01"]["response_ms"].median()
    assert said["median"] == pytest.approx(p01)
    assert said["empty"] == 0
    assert people["consent_version"].isna().sum() == 1  # a text column with an empty cell
    assert said["missing"] == answers.isna().to_numpy().sum() + people.isna().to_numpy().sum()
    assert "complete" in done.stdout and "unfinished" in done.stdout  # table(both$state)


def test_someone_left_out_of_the_consensus_only_is_said_to_be_in_the_report(
    study_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """``--exclude-inconsistent`` keeps a flagged participant's own pick in the report and
    leaves them out of the consensus alone: stderr says so, not "not in the report"."""
    import tradeoff.study.report as report

    real = report.study_sessions

    def flagged(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        assert any(p.parent.name == "p01" for p in found.sessions)
        return replace(found, left_out=(*found.left_out, ("p01", "flagged as inconsistent")))

    monkeypatch.setattr(report, "study_sessions", flagged)
    out = tmp_path / "report"
    assert main(["study", "report", str(study_dir), "--out", str(out), "--json"]) == 0
    err = capsys.readouterr().err
    assert "p01 is in the report but left out of its consensus: flagged as inconsistent" in err
    assert "p01 is not in the report" not in err
    assert "p02 is not in the report: unfinished after 3 answers" in err
