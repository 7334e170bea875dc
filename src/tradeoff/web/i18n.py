"""The study web page's words: one message catalogue (gettext, through Babel).

Every participant-facing string of :mod:`tradeoff.web` is written in English in the code
and the templates and looked up in a catalogue for the participant's language
(docs/architecture.md, "The study web page"). ``locale/tradeoff.pot`` lists them (made by
:func:`extract`; a test checks that it is current); a language is a
``locale/<lang>/LC_MESSAGES/tradeoff.po`` file beside it, read with Babel and compiled in
memory. English ships (it is the text itself), and German (``de``); :func:`pseudo_catalogue`
builds a pseudo-locale in which every catalogued string is visibly marked, so a test can
show that no string escapes the catalogue.

The sentences the core writes for the page (the option cards, the trade-offs and the
consistency check: :data:`CORE_SOURCES`) are catalogued too: they are marked there and said
through a :class:`tradeoff.text.Words` the page makes from its :class:`Language`
(:meth:`Language.words`), numbers in the language's Babel locale ("1.000", "0,21").
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from babel.core import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.support import Translations

from tradeoff.errors import InputError
from tradeoff.text import N_ as N_
from tradeoff.text import Words

HERE = Path(__file__).parent
LOCALE_DIR = HERE / "locale"
DOMAIN = "tradeoff"
#: The language the strings are written in.
SOURCE_LANGUAGE = "en"
#: How strings are found: ``_()`` in the Python modules, ``_()`` and ``{% trans %}`` in the
#: templates.
METHOD_MAP = [
    ("*.py", "python"),
    ("templates/**.html", "jinja2.ext:babel_extract"),
]
EXTRACT_OPTIONS = {"templates/**.html": {"extensions": "jinja2.ext.i18n"}}
#: The core's modules whose sentences the page shows, relative to the package: the option
#: cards and the trade-offs (:mod:`tradeoff.ask.shown`, :mod:`tradeoff.ask.words`,
#: :mod:`tradeoff.ask.narrative`), the consistency check and the answer patterns it names
#: (:mod:`tradeoff.learn.engine`), and what the review says of a pool's measurement noise
#: (:mod:`tradeoff.choose.measurement_words`).
CORE_SOURCES = (
    "ask/shown.py",
    "ask/words.py",
    "ask/narrative.py",
    "ask/aspects.py",
    "learn/engine.py",
    "learn/shares.py",
    "learn/verdict.py",
    "text.py",
    "choose/measurement_words.py",
    "choose/range_words.py",
)
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "_": None,
    "N_": None,
    "gettext": None,
    "ngettext": (1, 2),
}


@dataclass(frozen=True)
class Language:
    """A language the page can be shown in: its tag and its translations."""

    tag: str
    translations: NullTranslations

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.translations.ngettext(singular, plural, n)

    def words(self) -> Words:
        """This language for the core's sentences (:mod:`tradeoff.ask.words`,
        :mod:`tradeoff.ask.narrative`): its catalogue, and its tag as the Babel locale of numbers.

        >>> languages()["de"].words().count(1000), languages()["en"].words().count(1000)
        ('1.000', '1,000')
        """
        return Words(self.gettext, self.ngettext, self.tag)


def extract() -> Catalog:
    """Every catalogued string of the web page, from its code and templates."""
    catalog = Catalog(domain=DOMAIN, project="tradeoff", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(HERE),
        METHOD_MAP,
        options_map=EXTRACT_OPTIONS,
        keywords=KEYWORDS,
        strip_comment_tags=True,
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    package = HERE.parent
    for source in CORE_SOURCES:
        for lineno, message, comments, context in extract_from_file(
            "python", str(package / source), keywords=KEYWORDS, strip_comment_tags=True
        ):
            catalog.add(message, None, [(source, lineno)], auto_comments=comments, context=context)
    return catalog


def _compiled(catalog: Catalog) -> NullTranslations:
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(fp=buffer, domain=DOMAIN)


@cache
def languages() -> dict[str, Language]:
    """The languages shipped: English, and every ``locale/<lang>/LC_MESSAGES/tradeoff.po``."""
    out = {SOURCE_LANGUAGE: Language(SOURCE_LANGUAGE, NullTranslations())}
    for po in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        tag = po.parent.parent.name
        with po.open("rb") as fh:
            out[tag] = Language(tag, _compiled(read_po(fh, locale=tag, domain=DOMAIN)))
    return out


def check_study_language(tag: str | None, study_file: Path, known: dict[str, Language]) -> None:
    """Refuse a study's language (``study.json``'s ``language``) that the page has no
    words for: it would be shown in English without a word. The error names the file,
    the field and the languages there are.

    >>> check_study_language("de", Path("study.json"), languages())
    >>> check_study_language("xx", Path("study.json"), languages())
    Traceback (most recent call last):
    tradeoff.errors.InputError: ...
    """
    if tag is None or tag in known:
        return
    raise InputError.single(
        study_file,
        "language",
        f"is {tag[:40]!r}, a language the study's page has no words for (it would be "
        "shown in English).",
        f"set it to one of {', '.join(sorted(known))}, or remove the field (each "
        "participant's browser then chooses); a new language is a catalogue in "
        "tradeoff/web/locale (the README's Languages).",
    )


_FIELD = re.compile(r"(%\([a-z_]+\)[sd]|%[sd]|\{[a-z_]*\})")
_ACCENTED = str.maketrans("aeiouAEIOUcnyCNY", "áéíóúÁÉÍÓÚçñýÇÑÝ")


def pseudo(message: str) -> str:
    """A message in the pseudo-locale: accented and bracketed, fields kept as they are.

    >>> pseudo("Question %(n)s of %(total)s")
    '⟦Qúéstíóñ %(n)s óf %(total)s⟧'
    """
    parts = _FIELD.split(message)
    return "⟦" + "".join(p if _FIELD.fullmatch(p) else p.translate(_ACCENTED) for p in parts) + "⟧"


def pseudo_catalogue(tag: str = "x-pseudo") -> Language:
    """A language in which every catalogued string is :func:`pseudo` of itself."""
    source = extract()
    catalog = Catalog(locale=None, domain=DOMAIN, charset="utf-8")
    for message in source:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            catalog.add(message.id, tuple(pseudo(m) for m in message.id))
        else:
            catalog.add(message.id, pseudo(message.id))
    return Language(tag, _compiled(catalog))


def choose(accept_language: str | None, available: dict[str, Language]) -> Language:
    """The language for a request: the first of its ``Accept-Language`` the page has, else
    English.

    >>> choose("fr-CH, fr;q=0.9, en;q=0.8", languages()).tag
    'en'
    >>> choose("de-CH, en;q=0.5", languages()).tag
    'de'
    """
    wanted: list[tuple[float, int, str]] = []
    for index, item in enumerate((accept_language or "").split(",")[:20]):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag:
            wanted.append((-q, index, tag.lower()))
    for _, _, tag in sorted(wanted):
        for candidate in (tag, tag.split("-")[0]):
            if candidate in available:
                return available[candidate]
    return available[SOURCE_LANGUAGE]


#: The code page's language switch: its links' query parameter, and the cookie that keeps
#: the language chosen there (over the browser's ``Accept-Language``) for the session.
LANGUAGE_PARAMETER = "lang"
LANGUAGE_COOKIE = "lang"


def requested(
    chosen: str | None,
    kept: str | None,
    accept_language: str | None,
    available: dict[str, Language],
) -> Language:
    """The language of a request: one ``chosen`` on the switch (``?lang=``) or ``kept`` in
    its cookie, when the page has it; else the browser's (:func:`choose`).

    >>> on = languages()
    >>> requested(None, "de", "en-GB", on).tag, requested("en", "de", None, on).tag
    ('de', 'en')
    >>> requested("xx", None, "de", languages()).tag
    'de'
    """
    for tag in (chosen, kept):
        if tag and tag in available:
            return available[tag]
    return choose(accept_language, available)


@dataclass(frozen=True)
class Choice:
    """One language of the switch: its tag, its name in itself, and its link."""

    tag: str
    name: str
    href: str
    current: bool


def switch(current: Language, available: dict[str, Language]) -> list[Choice]:
    """The code page's language switch: every language the page has (a private-use tag such
    as the pseudo-locale's left out), each named in itself, the one shown marked current;
    empty when there is only one.

    >>> [(c.name, c.href, c.current) for c in switch(languages()["de"], languages())]
    [('Deutsch', './?lang=de', True), ('English', './?lang=en', False)]
    """
    out = []
    for tag in sorted(available):
        if tag.startswith("x-"):
            continue
        try:
            name = Locale.parse(tag.replace("-", "_")).get_display_name(tag.replace("-", "_"))
        except (ValueError, UnknownLocaleError):
            name = tag
        name = (name or tag)[:1].upper() + (name or tag)[1:]
        out.append(Choice(tag, name, f"./?{LANGUAGE_PARAMETER}={tag}", tag == current.tag))
    return out if len(out) > 1 else []


TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"


def template_text() -> str:
    """``locale/tradeoff.pot`` as :func:`extract` makes it now (sorted, no dates or line
    numbers, so it changes only when a string does)."""
    buffer = io.BytesIO()
    write_po(buffer, extract(), omit_header=True, sort_output=True, no_location=True, width=0)
    return buffer.getvalue().decode("utf-8")


if __name__ == "__main__":  # python -m tradeoff.web.i18n: write the template again
    TEMPLATE.write_text(template_text(), encoding="utf-8")
    print(f"wrote {TEMPLATE}")
