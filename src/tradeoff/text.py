"""Text from files made safe to print: no control characters reach a terminal.

Model names, participant ids, labels and column names come from files a person gives
(pools, scenarios, session headers). Printed raw, a crafted name could carry ESC or OSC
sequences that recolour, retitle or rewrite the terminal. :func:`clean_text` replaces
every C0 and C1 control character, DEL and the bidirectional overrides with ``?``.

>>> clean_text("model\\x1b]0;owned\\x07-1")
'model?]0;owned?-1'

Numbers a person reads are written here too: :func:`probability_words` for every chance
shown (never a false 0% or 100%), :func:`plain_number` for a factor ("100 times", never
"1e+02 times"). :class:`Words` is a language for the sentences the core writes (English,
:data:`ENGLISH`, unless the study web page gives its own), :func:`N_` marks a string for
a message catalogue, :class:`Voice` whom a sentence about a person's answers speaks to.
"""

from __future__ import annotations

import functools
import math
import os
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

#: C0 and C1 controls, DEL, the bidirectional embeddings, overrides and isolates, and the
#: invisible format characters that can hide or reorder what a name says: zero-width
#: space/joiners and direction marks (U+200B–U+200F), the Arabic letter mark (U+061C), the
#: Mongolian vowel separator (U+180E), line and paragraph separators (U+2028, U+2029), word
#: joiner and invisible operators (U+2060–U+2064), the byte-order mark (U+FEFF), tag
#: characters (U+E0000–U+E007F).
_CONTROL = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
#: What :func:`clean_text` changes: the characters above and tabs.
_NEEDS_CLEANING = re.compile(_CONTROL.pattern[:-1] + "\t]")


def clean_text(text: object) -> str:
    """``str(text)`` with each control character replaced by ``?`` (tabs become spaces)."""
    return _CONTROL.sub("?", str(text).replace("\t", " "))


def clean_texts(texts: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """:func:`clean_text` of every string, and whether any changed.

    One pass over all of them when none needs cleaning (a pool's million model names), so
    the common case costs one join and one search instead of a call per name.

    >>> clean_texts(["a", "b"])
    (('a', 'b'), False)
    >>> clean_texts(["a", "b\\tc", "d\\u200be"])
    (('a', 'b c', 'd?e'), True)
    """
    if _NEEDS_CLEANING.search("".join(texts)) is None:
        return tuple(texts), False
    out = tuple(clean_text(t) if _NEEDS_CLEANING.search(t) else t for t in texts)
    return out, True


def clean_data(data: Any) -> Any:
    """A JSON-like structure with every string (keys too) passed through :func:`clean_text`."""
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, dict):
        return {clean_text(k): clean_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [clean_data(v) for v in data]
    return data


#: First characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a cell
#: as a formula, and the tab and carriage return that hide one (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(text: str) -> str:
    """``text`` made safe as a CSV cell a person opens in a spreadsheet: a text that a
    spreadsheet would evaluate (starting with ``=``, ``+``, ``-``, ``@``, tab or carriage
    return) gets a leading apostrophe, which spreadsheets show as text and do not evaluate;
    control characters become ``?`` as in :func:`clean_text`. Numbers are never passed here:
    only texts (names, labels, versions).

    >>> spreadsheet_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> spreadsheet_cell("+1+1"), spreadsheet_cell("model-a"), spreadsheet_cell("\\rx")
    ("'+1+1", 'model-a', "'?x")
    """
    safe = text if text[:1] not in FORMULA_STARTS else "'" + text
    return _CONTROL.sub("?", safe.replace("\t", " ")) if _NEEDS_CLEANING.search(safe) else safe


# -- Markdown -------------------------------------------------------------------------------

#: What makes text Markdown or HTML anywhere on a line: the backslash itself, code spans,
#: emphasis, links and images, raw HTML and autolinks, character references, table pipes,
#: headings (ATX, and their closing ``#``s), strikethrough (GitHub).
_MD_ALWAYS = frozenset("\\`*[]<>&|#~")
#: What makes a line a list item, a thematic break or a setext heading underline when it
#: opens the line (unless a letter or digit follows, as in ``-0.5``): escaped there.
_MD_LINE_START = frozenset("-+=")
#: An ordered list marker opening the line: ``1.`` or ``1)`` and a space or nothing after.
_MD_ORDERED = re.compile(r"\d+[.)](?= |$)")


def markdown_text(value: object) -> str:
    """``str(value)`` as Markdown that reads as exactly that text, on one line: the one
    escaper of the project, for text from a file a person gave (a model, class or attribute
    name, a label, an id, a title) and for the project's own words wherever it writes
    Markdown (reports, codebooks, the judging tables, the benchmarks' tables).

    The rules, for CommonMark with GitHub's tables and strikethrough:

    * **line breaks** (``\\n``, ``\\r``, U+2028 and the others :meth:`str.splitlines`
      knows) become spaces, so the text stays one paragraph, heading, list item or table
      cell; tabs become spaces and other control characters ``?`` (:func:`clean_text`);
      the ends are trimmed (no indented code block);
    * **always escaped** with a backslash, which every CommonMark renderer shows as the
      character itself: ``\\`` (so a trailing backslash escapes nothing after it),
      backticks (no code span), ``*`` (no emphasis, no list), ``[`` and ``]`` (no link,
      image or reference, so ``!`` needs nothing), ``<`` and ``>`` (no HTML tag, no
      autolink, no block quote), ``&`` (no character reference), ``|`` (a **table's pipe**:
      a cell never splits), ``#`` (no heading), ``~`` (no strikethrough or code fence);
    * ``_`` escaped unless between two letters or digits (``recall_benign`` stays as it is:
      such an underscore never makes emphasis);
    * **at the start**: a ``-``, ``+`` or ``=`` unless a letter or digit follows (no list
      item, thematic break or setext underline; ``-0.5`` stays), and the ``.`` or ``)``
      of a leading number followed by a space or nothing (``1.`` is no ordered list; ``1.5``
      stays).

    A bare address (``https://…``) stays text in CommonMark; a renderer that links bare
    addresses (GitHub's) links the address the text shows, never another.

    >>> markdown_text("<script>alert(1)</script>")
    '\\\\<script\\\\>alert(1)\\\\</script\\\\>'
    >>> print(markdown_text("![x](http://e.org/x.png) a|b recall_benign _em_ # 1"))
    !\\[x\\](http://e.org/x.png) a\\|b recall_benign \\_em\\_ \\# 1
    >>> print(markdown_text("- 1. item\\nnext"), markdown_text("3) x"), markdown_text("-0.5"))
    \\- 1. item next 3\\) x -0.5
    """
    text = clean_text(" ".join(str(value).splitlines())).strip()
    out: list[str] = []
    last = len(text) - 1
    for i, ch in enumerate(text):
        if ch in _MD_ALWAYS or (
            i == 0 and ch in _MD_LINE_START and not (i < last and text[1].isalnum())
        ):
            out.append("\\" + ch)
        elif ch == "_" and not (0 < i < last and text[i - 1].isalnum() and text[i + 1].isalnum()):
            out.append("\\_")
        else:
            out.append(ch)
    escaped = "".join(out)
    number = _MD_ORDERED.match(escaped)
    if number is not None:
        end = number.end() - 1
        escaped = escaped[:end] + "\\" + escaped[end:]
    return escaped


def markdown_table(headers: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table of text: every header and cell through :func:`markdown_text`, so
    a cell is one line and never splits (its pipes are escaped). The one Markdown-table
    writer of the project.

    >>> print(markdown_table(["model", "acc"], [["<b>m|1</b>", 0.9]]))
    | model | acc |
    |---|---|
    | \\<b\\>m\\|1\\</b\\> | 0.9 |
    """
    out = ["| " + " | ".join(markdown_text(h) for h in headers) + " |"]
    out.append("|" + "---|" * len(headers))
    out += ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def markdown_html(
    source: str,
    *,
    images: Mapping[str, str] | None = None,
    heading_shift: int = 0,
    links: bool = False,
) -> str:
    """Markdown (a report, a scenario's description, a consent text) as HTML a person can
    open safely: the one renderer of the project (markdown-it-py, CommonMark with tables).

    Control characters become ``?`` line by line (:func:`clean_text`); raw HTML is shown as
    text, never passed through; an image is shown as its words unless its address is one of
    ``images`` (the report's own figures), whose value then replaces the address (a data
    URI: nothing is loaded from elsewhere); a link is shown as its words with the address
    after them in brackets, so nothing in a file leads elsewhere, unless ``links`` (a page
    whose consent text links a privacy notice): then it stays a link if its address is
    one markdown-it deems safe (``http``, ``https``, ``mailto``, relative; never
    ``javascript:``, ``vbscript:``, ``file:`` or ``data:``), opened with
    ``rel="noopener noreferrer"``; headings go
    ``heading_shift`` levels down (a page with its own ``<h1>``).

    >>> markdown_html("# Hi <b>x</b> ![a map](http://e.org/i.png)", heading_shift=1)
    '<h2>Hi &lt;b&gt;x&lt;/b&gt; a map</h2>\\n'
    >>> markdown_html("See [the policy](https://e.org/p) or <https://e.org>.")
    '<p>See the policy (https://e.org/p) or https://e.org.</p>\\n'
    >>> print(markdown_html("[policy](https://e.org/p) [x](javascript:alert(1))", links=True))
    <p><a href="https://e.org/p" rel="noopener noreferrer">policy</a> [x](javascript:alert(1))</p>
    <BLANKLINE>
    >>> markdown_html("![fig](f.png)", images={"f.png": "data:image/png;base64,AA"})
    '<p><img src="data:image/png;base64,AA" alt="fig" /></p>\\n'
    """
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse("\n".join(clean_text(line) for line in source.splitlines()))
    ours = images or {}
    words = RendererHTML()

    def as_text(content: str) -> Token:
        return Token("text", "", 0, content=content)

    for token in tokens:
        if token.type in ("heading_open", "heading_close") and heading_shift:
            token.tag = f"h{min(6, int(token.tag[1]) + heading_shift)}"
        children: list[Token] = []
        addresses: list[str] = []
        for child in token.children or []:
            if child.type == "image":
                src = str(child.attrGet("src") or "")
                if src in ours:
                    child.attrSet("src", ours[src])
                    children.append(child)
                else:  # its words, loading nothing
                    children.append(
                        as_text(words.renderInlineAsText(child.children or [], md.options, {}))
                    )
            elif links and child.type == "link_open":
                child.attrSet("rel", "noopener noreferrer")
                children.append(child)
            elif links and child.type == "link_close":
                children.append(child)
            elif child.type == "link_open":  # an autolink's words are its address
                href = str(child.attrGet("href") or "")
                addresses.append("" if child.markup == "autolink" else md.normalizeLinkText(href))
            elif child.type == "link_close":
                href = addresses.pop() if addresses else ""
                children.append(as_text(f" ({href})" if href else ""))
            else:
                children.append(child)
        if token.children is not None:
            token.children = children
    return str(md.renderer.render(tokens, md.options, {}))


# -- Numbers in words -----------------------------------------------------------------------


def probability_words(
    p: float,
    *,
    over: str = "over %(n)s%%",
    under: str = "under %(n)s%%",
    whole: str = "%(n)s%%",
) -> str:
    """A probability or a chance as a person reads it: whole percentages, never a false
    certainty. Anything from 99.5% up, 1 itself included, is "over 99%" (a P(best) of 1
    counts posterior draws, all of which agree; it is not a proof), anything above 0 and
    under 0.5% is "under 1%"; 0 stays "0%". The one rule for every P(best) or chance the
    project shows (the app, the study web page, ``select``, the report, ``session show``).

    ``over``, ``under`` and ``whole`` are the phrases with the number as ``%(n)s``: the web
    page passes them through its message catalogue.

    Examples
    --------
    >>> [probability_words(p) for p in (1.0, 0.9996, 0.994, 0.25, 0.004, 0.0)]
    ['over 99%', 'over 99%', '99%', '25%', 'under 1%', '0%']
    >>> probability_words(1.0, over="más del %(n)s%%")
    'más del 99%'
    """
    if p >= 0.995:
        return over % {"n": 99}
    if 0 < p < 0.005:
        return under % {"n": 1}
    return whole % {"n": round(100 * p)}


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun, singular for one ("1 session", "3 sessions", "1 person").

    >>> count(1, "session"), count(3, "person", "people")
    ('1 session', '3 people')
    """
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters (at least 2): whole if it fits, else its
    start and "…", so that a cut name or value is never read as a whole one.

    >>> cut("logreg-C0.1", 20), cut("Jimmy19991222_llama-3-8b-instruct", 12)
    ('logreg-C0.1', 'Jimmy199912…')
    """
    width = max(width, 2)
    return text if len(text) <= width else text[: width - 1] + "…"


def line_spans(lines: Sequence[int]) -> str:
    """File lines as runs: "line 4", "lines 2–14", "lines 2–5, 9 and 12–14".

    >>> line_spans([4]), line_spans([2, 3, 4]), line_spans([2, 3, 4, 5, 9, 12, 13, 14])
    ('line 4', 'lines 2–4', 'lines 2–5, 9 and 12–14')
    """
    runs: list[list[int]] = []
    for n in sorted(set(lines)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs]
    if len(parts) == 1 and runs[0][0] == runs[0][1]:
        return f"line {parts[0]}"
    if len(parts) == 1:
        return f"lines {parts[0]}"
    return f"lines {', '.join(parts[:-1])} and {parts[-1]}"


def percent(value: float) -> str:
    """A weight or an ω (a share of 1) in the one form every face gives it: whole
    percentages, the same in a report's tables, its sentences and its figures.

    >>> percent(0.025), percent(0.6049)
    ('2%', '60%')
    """
    return f"{value:.0%}"


def plain_number(x: float, digits: int = 2) -> str:
    """A positive number to ``digits`` significant figures as a person writes it: never in
    scientific notation ("100", not "1e+02"), thousands grouped, no trailing zeros.

    Examples
    --------
    >>> [plain_number(x) for x in (99.7, 120.0, 3.456, 0.0134, 0.000251, 12345.0, 20.0)]
    ['100', '120', '3.5', '0.013', '0.00025', '12,000', '20']
    >>> [plain_number(x) for x in (2.0, 0.5, 0.30001, 1.04)]
    ['2', '0.5', '0.3', '1']
    """
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    rounded = float(f"{x:.{digits}g}")
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    text = f"{rounded:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# -- words in a language ------------------------------------------------------------------


def N_(message: str) -> str:
    """Mark a string for a message catalogue where it is defined; it is translated where it
    is shown (``Words.gettext``). The catalogue's extractor finds ``N_``, ``_``,
    ``gettext`` and ``ngettext`` calls (:mod:`tradeoff.web.i18n`).

    >>> N_("Option A")
    'Option A'
    """
    return message


def _same(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


@functools.lru_cache(maxsize=32)
def _separators(locale: str) -> tuple[str, str]:
    """The decimal and group symbols of a Babel locale (English's for one Babel does not
    know, such as a pseudo-locale)."""
    if locale in ("en", "en_US"):
        return ".", ","
    from babel.core import Locale, UnknownLocaleError
    from babel.numbers import get_decimal_symbol, get_group_symbol

    try:
        parsed = Locale.parse(locale.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return ".", ","
    return get_decimal_symbol(parsed), get_group_symbol(parsed)


@dataclass(frozen=True)
class Words:
    """A language for the sentences the core writes (:mod:`tradeoff.ask.words`, the
    consistency check): its ``gettext`` and ``ngettext`` and the Babel locale its numbers
    are written in. The default, :data:`ENGLISH`, is the text as written, so the terminal,
    the command line and the reports are English; the study web page passes its catalogue's
    (:class:`tradeoff.web.i18n.Language`).

    >>> german = Words(locale="de")
    >>> german.count(1000), german.digits("1,234.5"), ENGLISH.digits("1,234.5")
    ('1.000', '1.234,5', '1,234.5')
    """

    gettext: Callable[[str], str] = _same
    ngettext: Callable[[str, str, int], str] = _english_plural
    #: A Babel locale identifier ("de", "en_US"); its decimal and group symbols are used.
    locale: str = "en"

    def digits(self, text: str) -> str:
        """A number Python formatted (``.`` decimal point, ``,`` between thousands) in the
        locale's symbols ("1,234.5" reads "1.234,5" in German); other characters stay."""
        decimal, group = _separators(self.locale)
        if (decimal, group) == (".", ","):
            return text
        return text.translate({ord("."): "\0", ord(","): group}).replace("\0", decimal)

    def count(self, n: int) -> str:
        """A whole number with the locale's thousands separator: "1,000", "1.000"."""
        return self.digits(f"{n:,}")

    def number(self, x: float, spec: str) -> str:
        """``format(x, spec)`` in the locale's symbols."""
        return self.digits(format(x, spec))


#: The text as written: English, numbers as "1,000.5".
ENGLISH = Words()


# -- whom a sentence speaks to ---------------------------------------------------------


@dataclass(frozen=True)
class Voice:
    """Whom the sentences about a person's answers speak to: the person reading them
    ("you", the default), or, in a team's report, a person named above them ("they").

    >>> YOU.subject, YOU.them, YOU.their
    ('You', 'you', 'your')
    >>> Voice("dr-kim").subject, Voice("dr-kim").them, Voice("dr-kim").their
    ('dr-kim', 'them', 'their')
    """

    #: The person's name (a participant id); ``None`` speaks to the reader.
    name: str | None = None

    @property
    def subject(self) -> str:
        """Who does something, at the start of a sentence: "You", or the name."""
        return "You" if self.name is None else self.name

    @property
    def them(self) -> str:
        """Who something is worth to: "you" or "them"."""
        return "you" if self.name is None else "them"

    @property
    def their(self) -> str:
        """Whose answers: "your" or "their"."""
        return "your" if self.name is None else "their"

    @property
    def named(self) -> str:
        """The person, said on their own: "you", or "participant dr-kim" (an id is a name,
        never a pronoun: a participant called "me" is "participant me")."""
        return "you" if self.name is None else f"participant {self.name}"

    @property
    def whose(self) -> str:
        """Whose metric or threshold, said on its own: "your", or "participant dr-kim's".

        >>> YOU.whose, Voice("me").whose, Voice("me").named
        ('your', "participant me's", 'participant me')
        """
        return "your" if self.name is None else f"{self.named}'s"

    def say(self, message: str, words: Words = ENGLISH) -> str:
        """A message written to the reader ("you") as this voice says it: translated by
        ``words`` for the reader; for a named person, in English with "you" and "your"
        made "they", "them" and "their", and "You would" the name (as ``%(subject)s``).

        >>> Voice("dr-kim").say("Not settled by your answers: %(text)s")
        'Not settled by their answers: %(text)s'
        >>> Voice("dr-kim").say("You would give up 10; say you would; to you.")
        '%(subject)s would give up 10; say they would; to them.'
        """
        if self.name is None:
            return words.gettext(message)
        for pattern, replacement in _NAMED:
            message = pattern.sub(replacement, message)
        return message


#: How a sentence to the reader speaks of a named person (:meth:`Voice.say`).
_NAMED = (
    (re.compile(r"\bYou would\b"), "%(subject)s would"),
    (re.compile(r"\byou would\b"), "they would"),
    (re.compile(r"\byour\b"), "their"),
    (re.compile(r"\byou\b"), "them"),
)


#: The person reading.
YOU = Voice()


def and_list(items: Sequence[str], words: Words = ENGLISH) -> str:
    """``items`` as a list in words: "a", "a and b", "a, b and c".

    >>> and_list(["a", "b", "c"]), and_list(["a"]), and_list(["a", "b"])
    ('a, b and c', 'a', 'a and b')
    """
    if len(items) <= 1:
        return "".join(items)
    return words.gettext(N_("%(some)s and %(last)s")) % {
        "some": ", ".join(items[:-1]),
        "last": items[-1],
    }


def fit_lines(text: str, width: int, hang: int = 0) -> str:
    """Each line of ``text`` longer than ``width`` broken between words, its continuation
    indented as the line is (a bullet's, "• " or "- ", to its text) and ``hang`` more (a
    table row's, under its last column); no word is split.

    >>> print(fit_lines("  • ƒ10.00 of price are worth between 4 min and 45 min", 30))
      • ƒ10.00 of price are worth
        between 4 min and 45 min
    >>> print(fit_lines("  - column 'size_kb': not found in the file.", 30))
      - column 'size_kb': not
        found in the file.
    >>> print(fit_lines("train-trips  no   Choosing between two train trips", 40, hang=18))
    train-trips  no   Choosing between two
                      train trips
    >>> fit_lines("short", 30)
    'short'
    """
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        body = line.lstrip(" ")
        indent = " " * (len(line) - len(body))
        more = indent + ("  " if body.startswith(("• ", "- ")) else "") + " " * hang
        more = more[: max(len(indent), width - 20)]  # room for a few words a line
        lines.append(
            textwrap.fill(
                body,
                width=max(width, 20),
                initial_indent=indent,
                subsequent_indent=more,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(lines)


def terminal_fit(text: str, stream: TextIO, hang: int = 0) -> str:
    """``text`` as it is written to ``stream``: when that is a terminal, its lines broken
    between words at the terminal's width (:func:`fit_lines`), which would otherwise break
    them wherever the width ends, inside a word or a path; elsewhere (a file, a pipe, a
    log) as it is, one line a message.

    >>> import io
    >>> terminal_fit("a message " * 20, io.StringIO()) == "a message " * 20
    True
    """
    try:
        if not stream.isatty():
            return text
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return text
    return fit_lines(text, width, hang)
