"""An attribute's ``format`` strings checked, and which of them shows a value.

A scenario writes an attribute's values with ``format`` (``"{value:.0f} changes of
train"``) and, for a value that reads as one, optionally with ``format_one``
(``"{value:.0f} change of train"``) and ``unit_one`` (``"change"``): one of two, as
English counts, so that a person never reads "1 changes". A number reads as one when its
text, as the format writes it, is exactly ``1`` ("1.0" and "1.00" keep the plural, as in
English).
"""

from __future__ import annotations

import re
import string

__all__ = ["check_format", "check_format_one", "counts_itself", "reads_one", "value_spec"]

#: The widest text a format may show (the option cards' columns are about this wide).
WIDEST = 80


def check_format(text: str, field: str = "format") -> str:
    """``text`` when it is a format a scenario may use (only ``{value}``, with a format
    spec without nested fields and with widths and precisions up to 40, showing a number
    in at most :data:`WIDEST` characters); else ``ValueError`` naming ``field``.

    >>> check_format("${value:.2f} per scan")
    '${value:.2f} per scan'
    >>> check_format("{cost}")
    Traceback (most recent call last):
    ...
    ValueError: format may only use {value} with a format spec, e.g. '{value:.2f}', not {cost}
    """
    fields = 0
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise ValueError(f"{field} is not a Python format string: {exc}") from None
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        fields += 1
        if name != "value" or conversion is not None:
            raise ValueError(
                f"{field} may only use {{value}} with a format spec, e.g. "
                f"'{{value:.2f}}', not {{{name}{'!' + conversion if conversion else ''}}}"
            )
        if "{" in (spec or "") or any(int(n) > 40 for n in re.findall(r"\d+", spec or "")):
            raise ValueError(
                f"{field} spec {spec!r} is not allowed: no nested fields, widths and "
                "precisions up to 40"
            )
    if fields == 0:
        raise ValueError(f"{field} must contain {{value}}")
    try:
        sample = text.format(value=1234.5678)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{field} cannot show a number: {exc}") from None
    if len(sample) > WIDEST:
        raise ValueError(f"{field} shows values longer than {WIDEST} characters")
    return text


def value_spec(text: str | None) -> str | None:
    """The format spec of the first ``{value…}`` field in ``text`` (``None`` when it has
    none).

    >>> value_spec("{value:.0f} changes"), value_spec("ƒ{value:.2f}"), value_spec(None)
    ('.0f', '.2f', None)
    """
    for _, name, spec, _ in string.Formatter().parse(text or ""):
        if name == "value":
            return spec or ""
    return None


def check_format_one(one: str | None, fmt: str | None) -> None:
    """Check ``format_one`` against the attribute's ``format``: the
    singular form writes the number as ``format`` does and starts with the same text (a
    currency sign is read from it), and needs ``format`` to be given; ``ValueError`` names
    the field and the fix.

    >>> check_format_one("{value:.0f} change", "{value:.0f} changes")
    >>> check_format_one("{value:.1f} change", "{value:.0f} changes")
    Traceback (most recent call last):
    ...
    ValueError: format_one must write the number as format does ('{value:.0f}'), not '{value:.1f}'
    """
    if one is None:
        return
    check_format(one, "format_one")
    if fmt is None:
        raise ValueError("format_one needs format: give both, the plural in format")
    if value_spec(one) != value_spec(fmt):
        raise ValueError(
            f"format_one must write the number as format does "
            f"('{{value:{value_spec(fmt)}}}'), not '{{value:{value_spec(one)}}}'"
        )
    if one.split("{", 1)[0] != fmt.split("{", 1)[0]:
        raise ValueError(
            f"format_one must start as format does ({fmt.split('{', 1)[0]!r} before the number)"
        )


def reads_one(number: str) -> bool:
    """Whether a number as shown reads as one (the singular's case): ``1``, with any sign
    or grouping the format adds, and no decimals.

    >>> reads_one("1"), reads_one("+1"), reads_one("1.0"), reads_one("11"), reads_one("0")
    (True, True, False, False, False)
    """
    return number.strip().lstrip("+") == "1"


def counts_itself(name: str, unit: str) -> bool:
    """Whether an attribute is counted in units of its own name ("changes" in changes):
    its amounts are said once ("2 fewer changes", a column "changes"), never
    "changes (changes)".

    >>> counts_itself("changes", "changes"), counts_itself("latency", "ms")
    (True, False)
    """
    return bool(unit) and unit.casefold() == name.casefold()
