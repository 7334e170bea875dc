"""Text from files a person gave never acts in a file the project writes for people.

Names, labels, titles, ids and versions come from scenario files, pool files, session files
and options. In a CSV they must not run as spreadsheet formulas
(:func:`tradeoff.text.spreadsheet_cell`); in Markdown they must stay text: no HTML, no link,
no image, no table cell break, no heading (:func:`tradeoff.text.markdown_text`); Markdown the
project renders as HTML passes no tag through (:func:`tradeoff.text.markdown_html`); and no
control character reaches any of them.
"""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli import main
from tradeoff.record.records import ConsentRecord
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.study.export import export_study
from tradeoff.study.folder import create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.text import FORMULA_STARTS, clean_text, markdown_html, markdown_text

from .conftest import SCENARIOS
from .participants import take_part

pytestmark = pytest.mark.e2e

SCRIPT = "<script>alert(1)</script>"
ONERROR = "<img src=x onerror=alert(1)>"
#: Consent versions (free text from `study create --consent-version`) a spreadsheet would run.
FORMULAS = ("=1+1", "+1+1", "-2+3", "@SUM(1,1)", "\tx", "\r=1")
#: Markdown that changes structure when it is not escaped.
MARKDOWN = ("# heading", "a | b", "`code`", "[link](http://evil.example/l)", "*em*", "&lt;")


def _renderer() -> MarkdownIt:
    """The project's Markdown renderer as :func:`markdown_html` configures it."""
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _shown(text: str) -> str:
    """What :func:`markdown_text` promises to show of ``text``: one line, no controls,
    trimmed."""
    return clean_text(" ".join(text.splitlines())).strip()


# -- markdown_text: one rule, in every place Markdown holds text ----------------------------

HOSTILE_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("\\`*_[]()<>!&|#~-+=.:;'\"0123456789 \t\n\raA")),
        st.characters(),
    ),
    max_size=40,
)


@given(HOSTILE_TEXT)
@example(SCRIPT)
@example(ONERROR)
@example("1. first")
@example("---")
@example("a_b_ _c_")
@example("\\")
@example("&amp; &#60;")
@example("    indented code")
@example("<http://evil.example>")
def test_markdown_text_renders_as_exactly_its_text(text: str) -> None:
    escaped = markdown_text(text)
    shown = escapeHtml(_shown(text))
    md = _renderer()
    # a paragraph of its own: the paragraph and nothing else
    assert md.render(escaped) == (f"<p>{shown}</p>\n" if shown else "")
    # a table cell, a heading and a list item: the same text, no other tag
    table = md.render(f"| h |\n|---|\n| {escaped} |")
    assert f"<td>{shown}</td>" in table
    assert md.render(f"### {escaped}") == f"<h3>{shown}</h3>\n"
    item = md.render(f"- {escaped}")
    assert item == (f"<ul>\n<li>{shown}</li>\n</ul>\n" if shown else "<ul>\n<li></li>\n</ul>\n")


@pytest.mark.parametrize("text", [SCRIPT, ONERROR, *MARKDOWN])
def test_markdown_text_holds_no_tag_or_structure(text: str) -> None:
    escaped = markdown_text(text)
    assert re.search(r"(?<!\\)[<>|`\[\]#&*]", escaped) is None, escaped
    assert markdown_html(escaped) == f"<p>{escapeHtml(text)}</p>\n"


ALLOWED_TAGS = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "code", "pre", "ul", "ol",
    "li", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "img",
}  # fmt: skip


@given(HOSTILE_TEXT)
@example(f"# T {SCRIPT}\n\n{ONERROR} ![x](http://evil.example/x.png) [l](javascript:x)")
@example('<a href="http://evil.example">x</a> <http://evil.example/auto>')
@example("0.")
def test_markdown_html_passes_no_tag_through(source: str) -> None:
    page = markdown_html(source, heading_shift=1)
    tags = set(re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", page))
    assert tags <= ALLOWED_TAGS - {"img", "h1"}, page
    # No attribute (no link, no load) but the number a list starts at ("0." starts one).
    for tag in re.findall(r"<[A-Za-z][^>]*>", page):
        assert re.fullmatch(r'<[a-z0-9]+( /)?>|<ol start="\d+">', tag), tag
    assert re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", page) is None


@given(HOSTILE_TEXT)
@example("0.")
@example("[p](javascript:alert(1)) [q](JaVaScRiPt:x) [r](vbscript:x) [s](data:text/html,x)")
@example("[f](file:///etc/passwd) <javascript:x> [ok](https://e.org/p) [m](mailto:a@e.org)")
def test_a_page_keeps_only_links_with_a_safe_address(source: str) -> None:
    """On the study page (``links=True``) a consent text's links stay links, but only with
    a safe address, and no other attribute or tag gets through."""
    page = markdown_html(source, heading_shift=1, links=True)
    tags = set(re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", page))
    assert tags <= ALLOWED_TAGS - {"img", "h1"} | {"a"}, page
    for tag in re.findall(r"<[A-Za-z][^>]*>", page):
        if tag.startswith("<a "):
            href = re.fullmatch(r'<a href="([^"]*)" rel="noopener noreferrer">', tag)
            assert href is not None, tag
            scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", href.group(1))
            assert scheme is None or scheme.group(1).lower() in {"http", "https", "mailto"}, tag
        else:
            assert re.fullmatch(r'<[a-z0-9]+( /)?>|<ol start="\d+">', tag), tag


def test_markdown_html_embeds_only_the_images_it_is_given() -> None:
    page = markdown_html(
        "![fig](f.png) ![b](http://evil.example/b.png)", images={"f.png": "data:x"}
    )
    assert page == '<p><img src="data:x" alt="fig" /> b</p>\n'


# -- study export: CSV cells, Parquet, codebook -------------------------------------------


def _hostile_scenario(folder: Path) -> Path:
    """The breast-lump scenario with a title, a class label and a unit a person could type
    into a scenario file."""
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
    text = text.replace(
        'title = "Breast lump triage from fine-needle aspirates"',
        f'title = "Triage {SCRIPT} | # x"',
    )
    text = text.replace('label = "malignant lumps"', f'label = "malignant {ONERROR} lumps"')
    text = text.replace('unit = "KB"', 'unit = "=1+1"')
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pools").mkdir(exist_ok=True)
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", folder / "pools")
    path = folder / "hostile.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-export")
    pids = [f"p{i + 1:02d}" for i in range(len(FORMULAS))]
    study, _ = create_study(_hostile_scenario(root / "sc"), pids, root / "study")
    for k, (pid, version) in enumerate(zip(pids, FORMULAS, strict=True)):
        consent = ConsentRecord(type="consent", version=version, text_sha256="ab" * 32)
        take_part(study, pid, budget=2, seed=k, consent=consent)
    out = root / "out"
    out.mkdir()
    export_study(load_study(study.path), out / "answers.csv")
    export_study(load_study(study.path), out / "answers_pq.parquet")
    return out


def test_no_csv_text_cell_is_a_formula(exported: Path) -> None:
    for name in ("answers.csv", "answers.participants.csv", "answers.csv.codebook.csv"):
        with open(exported / name, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        for row in rows:
            for cell in row:
                assert not cell.startswith(FORMULA_STARTS), (name, cell)
                assert re.search(r"[\x00-\x1f\x7f]", cell) is None, (name, cell)
    table = pd.read_csv(exported / "answers.csv")
    assert sorted(set(table["consent_version"])) == sorted("'" + clean_text(v) for v in FORMULAS)
    book = pd.read_csv(exported / "answers.csv.codebook.csv").set_index("column")
    assert book.loc["A_memory", "unit"] == "'=1+1"


def test_numbers_stay_numbers(exported: Path) -> None:
    table = pd.read_csv(exported / "answers.csv")
    for column in ("question", "answer_seq", "A_latency", "w_memory", "A_memory_shown"):
        assert pd.api.types.is_numeric_dtype(table[column]), column


def test_parquet_holds_the_same_safe_text(exported: Path) -> None:
    table = pd.read_parquet(exported / "answers_pq.parquet")
    versions = set(table["consent_version"])
    assert versions == {"'" + clean_text(v) for v in FORMULAS}
    assert all("\t" not in v and "\r" not in v for v in versions)
    assert pd.api.types.is_float_dtype(table["A_latency"])
    pd.testing.assert_frame_equal(pd.read_csv(exported / "answers.csv"), table, check_dtype=False)


def test_the_codebook_is_text_and_says_how_text_cells_are_written(exported: Path) -> None:
    md = (exported / "answers.csv.codebook.md").read_text(encoding="utf-8")
    assert re.search(r"(?<!\\)[<>]", md) is None, "raw HTML in the codebook"
    page = markdown_html(md)
    assert "<script" not in page and "<img" not in page and "onerror" not in page.split("&lt;")[0]
    assert escapeHtml(ONERROR) in page
    assert page.startswith(f"<h1>Codebook: Triage {escapeHtml(SCRIPT)} | # x</h1>")
    assert "apostrophe" in md and "spreadsheet" in md


# -- the decision report -------------------------------------------------------------------


def test_the_report_carries_names_as_text(tmp_path: Path) -> None:
    scenario = _hostile_scenario(tmp_path / "sc")
    loaded = load_scenario(scenario)
    sessions = []
    for i, truth in enumerate(((0.6, 0.2, 0.1, 0.1), (0.2, 0.6, 0.1, 0.1))):
        rec = start_session(
            loaded,
            f"p{i}",
            tmp_path / "s",
            spec=loaded.scenario.elicitation.override(budget=6),
            seed=i,
        )
        oracle = SimulatedOracle.for_scenario(loaded.scenario, truth)
        with rec:
            while (q := rec.engine.next_query()) is not None:
                rec.answer(oracle.choose(q))
            rec.finish()
        sessions.append(rec.path)
    frame = pd.read_csv(SCENARIOS / "pools" / "breast-cancer.csv")
    frame["model"] = [f"{name} {SCRIPT} {ONERROR} `x` *y*" for name in frame["model"]]
    pool = tmp_path / "pool.csv"
    frame.to_csv(pool, index=False)
    out = tmp_path / "report"
    argv = ["report", str(pool), *[a for p in sessions for a in ("--session", str(p))]]
    assert main([*argv, "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    # outside the command's code block and our quotes' "> ", every < and > is escaped
    prose = md.split("```sh")[0] + md.split("```sh")[1].split("```", 1)[1]
    prose = re.sub(r"^> ", "", prose, flags=re.M)
    assert re.search(r"(?<!\\)[<>]", prose) is None, "raw HTML in report.md"
    page = (out / "report.html").read_text()
    assert "<script" not in page and "<img src=x" not in page and "<em>y</em>" not in page
    assert escapeHtml(SCRIPT) in page
    assert f"<h1>Decision report: Triage {escapeHtml(SCRIPT)} | # x</h1>" in page
