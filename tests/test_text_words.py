"""Numbers in a language (:class:`tradeoff.text.Words`): the same text as Babel's own
formatting of the number for that locale (decimal and group symbols), and the English
default leaves Python's text as it is."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import format_decimal
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.text import ENGLISH, Words

pytestmark = pytest.mark.core

#: Locales that group every number from 1,000 up (Babel's minimum grouping of 1). Not
#: de_CH: Babel 2.19 writes 12'345 but 1000000 there, 2.18 1’000’000 (the page shows
#: German in the ``de`` locale whatever the region a browser names).
LOCALES = ("de", "fr", "it", "nl", "en")


@given(
    x=st.floats(min_value=-1e9, max_value=1e9, allow_nan=False),
    decimals=st.integers(0, 4),
    locale=st.sampled_from(LOCALES),
)
def test_numbers_read_as_babel_writes_them(x: float, decimals: int, locale: str) -> None:
    """``Words.number`` against Babel's ``format_decimal`` of the same rounded number."""
    shown = format(x, f",.{decimals}f")
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    expected = format_decimal(Decimal(shown.replace(",", "")), pattern, locale=locale)
    assert Words(locale=locale).number(x, f",.{decimals}f") == expected


@given(n=st.integers(0, 10**12), locale=st.sampled_from(LOCALES))
def test_counts_read_as_babel_writes_them(n: int, locale: str) -> None:
    assert Words(locale=locale).count(n) == format_decimal(n, "#,##0", locale=locale)


@given(text=st.text())
def test_english_and_unknown_locales_leave_the_text_as_it_is(text: str) -> None:
    """The default, and a locale Babel does not know (a pseudo-locale), change nothing."""
    assert ENGLISH.digits(text) == text
    assert Words(locale="x-pseudo").digits(text) == text
