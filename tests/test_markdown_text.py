"""The one Markdown escaper (:func:`tradeoff.text.markdown_text`) against a real renderer.

Whatever the text, the escaped text rendered by markdown-it-py (CommonMark with GitHub's
tables and strikethrough, the renderer :func:`tradeoff.text.markdown_html` uses) gives back
the literal text, in a paragraph, a heading, a list item and a table cell; and a table
(:func:`tradeoff.text.markdown_table`) keeps every row's cells where they were: a cell never
splits and none is lost.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from tradeoff.text import clean_text, markdown_table, markdown_text

pytestmark = pytest.mark.core

#: Text a person could give, heavy in what makes Markdown: every character that has a
#: meaning somewhere, and any other.
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("\\`*_[]()<>!&|#~-+=.):;'\"0123456789 \t\n\raA:/w")),
        st.characters(),
    ),
    max_size=30,
)


def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def _literal(text: str) -> str:
    """The text the escaper promises to show, as HTML writes it: one line, no controls,
    trimmed."""
    return escapeHtml(clean_text(" ".join(text.splitlines())).strip())


@given(TEXT)
@example("<b>x</b> ![i](http://e.org/i.png) [l](http://e.org)")
@example("1. first")
@example("3) x")
@example("---")
@example("===")
@example("+ item")
@example("> quote")
@example("~~gone~~ ~~~")
@example("a_b_ _c_ *d* **e**")
@example("`code` ``x``")
@example("x\\")
@example("&amp; &#60;")
@example("    indented")
@example("<http://evil.example>")
@example("# title #")
def test_escaped_text_renders_as_its_literal_text(text: str) -> None:
    escaped = markdown_text(text)
    literal = _literal(text)
    md = _renderer()
    assert md.render(escaped) == (f"<p>{literal}</p>\n" if literal else "")
    assert md.render(f"### {escaped}") == f"<h3>{literal}</h3>\n"
    assert md.render(f"- {escaped}") == f"<ul>\n<li>{literal}</li>\n</ul>\n"


@given(st.lists(TEXT, min_size=1, max_size=4), st.lists(st.lists(TEXT), max_size=3))
@example(["a|b", "c"], [["x\\", "|"], ["`a|b`", "\\|"]])
@example(["h"], [["x\nnext | y"]])
@example(["h", "k"], [["x\ry", "z"]])
@example(["- item", "1. x"], [["> q", "# h"]])
def test_a_tables_cells_never_split(headers: list[str], rows: list[list[str]]) -> None:
    n = len(headers)
    rows = [(row + [""] * n)[:n] for row in rows]  # every row as wide as the header
    html = _renderer().render(markdown_table(headers, rows))
    assert html.count("<table>") == 1
    found = [
        re.findall(r"<t[hd]>(.*?)</t[hd]>", tr)
        for tr in re.findall(r"<tr>\n(.*?)</tr>", html, re.S)
    ]
    assert found == [[_literal(h) for h in headers]] + [[_literal(c) for c in row] for row in rows]


def test_numbers_and_names_stay_as_they_are() -> None:
    """What needs no escaping is written as it is: a negative number, an intraword
    underscore, a decimal at the start, an address."""
    for text in ("-0.5", "recall_benign", "1.5 ms", "https://e.org/a_b", "n/d", "+1"):
        assert markdown_text(text) == text
