"""Recruiting through a panel: who may enter a study by link, and where they go at the end.

A panel (Prolific, or any panel that passes its participant's id in the link) sends each
person to the study's ``/panel`` page with their panel id in a URL parameter
(:attr:`Panel.id_param`, Prolific's ``PROLIFIC_PID``) and other parameters the study keeps
(:attr:`Panel.keep_params`, Prolific's ``STUDY_ID`` and ``SESSION_ID``). A person is let in
when their id is on the study's allow-list (a file given at ``study create``), or, without
a list, while the open enrolment's cap and quotas have room (:mod:`tradeoff.study.entries`
counts them under the study's lock). Their participant id is derived from the panel id by
a keyed hash (:meth:`Panel.participant_of`): the same panel id always comes back to the
same session, and the panel id is not the session folder's name.

At the end a person is sent back to the panel, or shown a code to paste there: one
:class:`Ending` for a completed session, one for declined consent, one for a screen-out
(not on the list, the cap or a quota full). A redirect URL may name the link's parameters,
e.g. ``https://app.prolific.com/submissions/complete?cc=C1&pid={PROLIFIC_PID}``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from tradeoff.errors import InputError

#: The allow-list's copy in a study folder (hashed in ``study.json`` like the scenario).
ALLOW_FILE = "panel-ids.txt"
#: Prolific's parameter names: its participant's id, the study's and the submission's.
PRESETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "prolific": ("PROLIFIC_PID", ("STUDY_ID", "SESSION_ID")),
}
#: A panel id: 1–64 letters, digits, ``-``, ``_``, ``.`` (Prolific's are 24 hex digits).
PANEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: A URL parameter's name the study reads or keeps.
PARAM_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
#: A kept parameter's value: at most this many printable characters.
PARAM_VALUE_LIMIT = 256
#: At most this many parameters are kept (an entry record holds at most 16).
KEEP_LIMIT = 15
#: A redirect URL's largest length.
URL_LIMIT = 2000
#: An ending's code: letters, digits, ``-`` and ``_``, at most 64.
ENDING_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A place under the cap is held this long for someone who opened the link and has not
#: consented yet (``study create --consent-within``), unless the study says otherwise.
CONSENT_MINUTES = 60
#: The longest ``--consent-within`` (a week).
CONSENT_MINUTES_MAX = 7 * 24 * 60
#: Why a person was screened out, as the log and the coordinator's page name it.
SCREEN_REASONS = ("not on the list", "study full", "quota full", "quota group unknown")


def valid_panel_id(text: str) -> bool:
    """Whether ``text`` is a usable panel id (:data:`PANEL_ID`).

    >>> valid_panel_id("5f8a2c1e9b7d4e3f2a1b0c9d"), valid_panel_id("a/../b"), valid_panel_id("")
    (True, False, False)
    """
    return PANEL_ID.fullmatch(text) is not None


def valid_param_value(text: str) -> bool:
    """Whether a kept parameter's value may be recorded: printable, at most
    :data:`PARAM_VALUE_LIMIT` characters.

    >>> valid_param_value("60a1b2"), valid_param_value("x\\n"), valid_param_value("x" * 300)
    (True, False, False)
    """
    return len(text) <= PARAM_VALUE_LIMIT and text.isprintable()


@dataclass(frozen=True)
class Ending:
    """Where a person goes at an end (completed, declined, screened out): a redirect URL,
    a code to show, both (the code is shown with a link) or neither (a thank-you page)."""

    url: str | None = None
    code: str | None = None

    def target(self, values: Mapping[str, str]) -> str | None:
        """The redirect URL with ``{NAME}`` replaced by the link's parameter ``NAME``
        (URL-quoted; a name the link did not carry becomes empty).

        >>> Ending("https://panel.example/done?cc=C1&p={PID}").target({"PID": "a b"})
        'https://panel.example/done?cc=C1&p=a%20b'
        """
        if self.url is None:
            return None
        out = []
        for literal, name, _spec, _conv in string.Formatter().parse(self.url):
            out.append(literal)
            if name is not None:
                out.append(quote(values.get(name, ""), safe=""))
        return "".join(out)

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in (("url", self.url), ("code", self.code)) if v is not None}


@dataclass(frozen=True)
class Panel:
    """How a study lets people in by link (``study.json``'s ``panel``)."""

    id_param: str
    keep_params: tuple[str, ...]
    #: The key of :meth:`participant_of` (random per study).
    salt: bytes
    #: Whether only the ids in :data:`ALLOW_FILE` may enter.
    allow_list: bool = False
    #: Open enrolment: at most this many people (``None``: no cap).
    cap: int | None = None
    #: Open enrolment: a kept parameter whose value puts a person in a quota group, and
    #: each group's size.
    quota_field: str | None = None
    quotas: dict[str, int] = field(default_factory=dict)
    complete: Ending = field(default_factory=Ending)
    declined: Ending = field(default_factory=Ending)
    screened: Ending = field(default_factory=Ending)
    #: Open enrolment: a person let in who has not consented (started) this many minutes
    #: later gives up their place under the cap and their quota (:data:`CONSENT_MINUTES`).
    consent_minutes: int = CONSENT_MINUTES

    def participant_of(self, panel_id: str) -> str:
        """The study's participant id for a panel id: ``panel-`` and 20 hex digits of a
        hash keyed by the study's salt (the same every time, for every server process).

        >>> p = Panel("PID", (), b"k" * 16)
        >>> p.participant_of("abc") == p.participant_of("abc"), p.participant_of("abc")[:6]
        (True, 'panel-')
        """
        digest = hmac.new(self.salt, panel_id.encode("utf-8"), hashlib.sha256).hexdigest()
        return f"panel-{digest[:20]}"

    def read_link(self, query: Mapping[str, str]) -> tuple[str, dict[str, str]] | str:
        """The panel id and the kept parameters of a link's query, or why they are
        refused (a sentence for the log; the person sees a plain page)."""
        panel_id = query.get(self.id_param, "")
        if not valid_panel_id(panel_id):
            return f"{self.id_param} missing or not a panel id"
        kept: dict[str, str] = {}
        for name in self.keep_params:
            value = query.get(name)
            if value is None:
                continue
            if not valid_param_value(value):
                return f"{name} is not a usable value"
            kept[name] = value
        return panel_id, kept

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id_param": self.id_param,
            "keep_params": list(self.keep_params),
            "salt": self.salt.hex(),
            "allow_list": self.allow_list,
            "cap": self.cap,
            "quota_field": self.quota_field,
            "quotas": dict(self.quotas),
            "consent_minutes": self.consent_minutes,
        }
        for name in ("complete", "declined", "screened"):
            ending: Ending = getattr(self, name)
            if ending.url or ending.code:
                data[name] = ending.to_json()
        return data

    @classmethod
    def from_json(cls, data: Any) -> Panel:
        """A panel as :meth:`to_json` wrote it (a ``ValueError``/``KeyError``/``TypeError``
        otherwise: :func:`tradeoff.study.folder.load_study` names the field)."""
        if not isinstance(data, dict):
            raise TypeError("not an object")
        endings = {}
        for name in ("complete", "declined", "screened"):
            raw = data.get(name, {})
            if not isinstance(raw, dict):
                raise TypeError(f"{name} is not an object")
            endings[name] = Ending(
                check_url(raw["url"], name) if "url" in raw else None,
                check_ending_code(raw["code"], name) if "code" in raw else None,
            )
        cap = data.get("cap")
        if cap is not None and (type(cap) is not int or cap < 1):
            raise ValueError("cap is not a positive whole number")
        minutes = data.get("consent_minutes", CONSENT_MINUTES)
        if type(minutes) is not int or not 1 <= minutes <= CONSENT_MINUTES_MAX:
            raise ValueError(f"consent_minutes is not from 1 to {CONSENT_MINUTES_MAX}")
        quotas = data.get("quotas", {})
        if not isinstance(quotas, dict) or not all(
            type(v) is int and v >= 0 for v in quotas.values()
        ):
            raise ValueError("quotas are not whole numbers")
        return check_panel(
            cls(
                id_param=str(data["id_param"]),
                keep_params=tuple(str(p) for p in data["keep_params"]),
                salt=bytes.fromhex(data["salt"]),
                allow_list=bool(data.get("allow_list", False)),
                cap=cap,
                quota_field=None if data.get("quota_field") is None else str(data["quota_field"]),
                quotas={str(k): v for k, v in quotas.items()},
                consent_minutes=minutes,
                **endings,
            )
        )


def check_url(url: str, flag: str) -> str:
    """A redirect URL: http or https, with a host, printable, at most :data:`URL_LIMIT`
    characters, its ``{NAME}`` parts well formed.

    >>> check_url("https://app.prolific.com/submissions/complete?cc=C1", "--complete-url")
    'https://app.prolific.com/submissions/complete?cc=C1'
    """
    fix = "give an http:// or https:// address, e.g. https://app.prolific.com/submissions/complete?cc=CODE."
    if not isinstance(url, str) or not url.isprintable() or len(url) > URL_LIMIT or " " in url:
        raise InputError.single(flag, "", f"{str(url)[:80]!r} is not a web address.", fix)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError.single(
            flag, "", f"{url[:80]!r} is not an http or https address with a host.", fix
        )
    try:
        names = [n for _, n, _, _ in string.Formatter().parse(url) if n is not None]
    except ValueError:
        raise InputError.single(
            flag,
            "",
            f"{url[:80]!r} has an unmatched '{{' or '}}'.",
            "write {NAME} for a parameter.",
        ) from None
    for name in names:
        if not PARAM_NAME.fullmatch(name):
            raise InputError.single(
                flag,
                "",
                f"{{{name[:40]}}} is not a parameter's name.",
                "write {NAME} with the name of a link parameter, e.g. {PROLIFIC_PID}.",
            )
    if "\\" in url:
        raise InputError.single(
            flag,
            "",
            f"{url[:80]!r} has a backslash (browsers read it as '/').",
            "write '/' or %5C instead.",
        )
    part = _filled_part(url)
    if part is not None:
        raise InputError.single(
            flag,
            "",
            f"{url[:80]!r} lets a link parameter fill its {part}: a participant could choose "
            "where the ending sends people.",
            "write the panel's address in full; a parameter may fill only the path or the "
            "query, e.g. https://app.prolific.com/submissions/complete?cc=C1&pid={PROLIFIC_PID}.",
        )
    return url


def _filled_part(url: str) -> str | None:
    """The part of ``url`` other than its path and query that a ``{NAME}`` falls in (the
    scheme, the host, the port, the user or password, the fragment), or ``None``: each
    ``{NAME}`` is put in as a mark the URL does not hold, and the URL split.

    >>> _filled_part("https://{STUDY_ID}/x"), _filled_part("https://a.example/{X}?y={Y}")
    ('host', None)
    """
    mark = "tradeoffparam"
    while mark in url.lower():
        mark += "x"
    marked = "".join(
        literal + ("" if name is None else mark)
        for literal, name, _spec, _conv in string.Formatter().parse(url)
    )
    parts = urlsplit(marked)
    if mark in parts.scheme.lower():
        return "scheme"
    userinfo, _at, hostport = parts.netloc.lower().rpartition("@")
    if mark in userinfo:
        return "user or password"
    host, colon, port = hostport.rpartition(":")
    if not colon or "]" in port:  # no port (or the colon of an IPv6 address)
        host, port = hostport, ""
    if mark in port:
        return "port"
    if mark in host:
        return "host"
    if mark in parts.fragment.lower():
        return "fragment"
    return None


def check_ending_code(code: str, flag: str) -> str:
    """A code shown at an end: 1–64 letters, digits, ``-`` or ``_``.

    >>> check_ending_code("C1A2B3", "--complete-code")
    'C1A2B3'
    """
    if not isinstance(code, str) or ENDING_CODE.fullmatch(code) is None:
        raise InputError.single(
            flag,
            "",
            f"{str(code)[:80]!r} is not a usable code.",
            "give 1–64 letters, digits, '-' or '_' (the code the panel gave you).",
        )
    return code


def _check_name(name: str, flag: str) -> str:
    if PARAM_NAME.fullmatch(name) is None:
        raise InputError.single(
            flag,
            "",
            f"{name[:80]!r} is not a usable parameter name.",
            "give a letter, then letters, digits or '_' (at most 64), e.g. PROLIFIC_PID.",
        )
    return name


def check_panel(panel: Panel) -> Panel:
    """A panel whose parts fit together: names well formed, the quota field kept, each
    URL's ``{NAME}`` one of the link's parameters, an allow-list without cap or quotas."""
    _check_name(panel.id_param, "--panel-id-param")
    for name in panel.keep_params:
        _check_name(name, "--panel-keep-param")
    if panel.id_param in panel.keep_params or len(set(panel.keep_params)) != len(panel.keep_params):
        raise InputError.single(
            "--panel-keep-param", "", "names a parameter twice.", "give each parameter once."
        )
    if len(panel.keep_params) > KEEP_LIMIT:
        raise InputError.single(
            "--panel-keep-param",
            "",
            f"keeps {len(panel.keep_params)} parameters.",
            f"keep at most {KEEP_LIMIT}.",
        )
    if len(panel.salt) < 16:
        raise ValueError("salt is shorter than 16 bytes")
    if panel.allow_list and (panel.cap is not None or panel.quotas):
        raise InputError.single(
            "--panel-ids",
            "",
            "an allow-list is given with a cap or quotas.",
            "give either an allow-list of panel ids, or a cap and quotas for open enrolment.",
        )
    if not panel.allow_list and panel.cap is None:
        raise InputError.single(
            "--cap",
            "",
            "open enrolment (no --panel-ids) needs a cap.",
            "give --cap N, the most people the study takes (a flood of made-up ids would "
            "otherwise enrol without end), or an allow-list with --panel-ids FILE.",
        )
    if not 1 <= panel.consent_minutes <= CONSENT_MINUTES_MAX:
        raise InputError.single(
            "--consent-within",
            "",
            f"{panel.consent_minutes} is not a number of minutes a place is held.",
            f"give a whole number of minutes from 1 to {CONSENT_MINUTES_MAX}, e.g. 60.",
        )
    if panel.cap is not None and panel.cap < 1:
        raise InputError.single("--cap", "", f"{panel.cap} is not a cap.", "give a number ≥ 1.")
    if (panel.quota_field is None) != (not panel.quotas):
        raise InputError.single(
            "--quota-field",
            "",
            "a quota field needs quotas, and quotas need their field.",
            "give --quota-field NAME with --quota VALUE=N for each group.",
        )
    if panel.quota_field is not None:
        _check_name(panel.quota_field, "--quota-field")
        if panel.quota_field not in panel.keep_params:
            raise InputError.single(
                "--quota-field",
                "",
                f"{panel.quota_field!r} is not a kept parameter.",
                f"also give --panel-keep-param {panel.quota_field} (the value is recorded).",
            )
    names = {panel.id_param, *panel.keep_params}
    for flag, ending in (
        ("--complete-url", panel.complete),
        ("--declined-url", panel.declined),
        ("--screened-url", panel.screened),
    ):
        if ending.url is None:
            continue
        for part in string.Formatter().parse(ending.url):
            wanted = part[1]
            if wanted is not None and wanted not in names:
                raise InputError.single(
                    flag,
                    "",
                    f"names {{{wanted}}}, which the link does not carry.",
                    f"use one of {', '.join('{' + n + '}' for n in sorted(names))}, or keep "
                    f"that parameter with --panel-keep-param {wanted}.",
                )
    return panel


def parse_quotas(given: Sequence[str]) -> dict[str, int]:
    """``VALUE=N`` quotas, each value once; spaces around ``=`` and the value are allowed.

    >>> parse_quotas(["female=50", " male = 50 "])
    {'female': 50, 'male': 50}
    """
    form = "write it as VALUE=N, e.g. --quota female=50 (one --quota per group)."
    quotas: dict[str, int] = {}
    for item in given:
        value, sep, number = (part.strip() for part in item.partition("="))
        shown = repr(item[:80])
        if not sep or not value or not valid_param_value(value):
            what = "names no value before =" if sep and not value else "is not VALUE=N"
            raise InputError.single("--quota", "", f"{shown} {what}.", form)
        if not (number.isascii() and number.isdigit() and len(number) <= 7):
            raise InputError.single(
                "--quota",
                "",
                f"{shown}: {number[:20]!r} is not a count of people.",
                f"give a whole number N ≥ 0 after =; {form}",
            )
        if value in quotas:
            raise InputError.single("--quota", "", f"{value!r} is given twice.", "give it once.")
        quotas[value] = int(number)
    return quotas


def read_panel_ids(text: str, source: str, empty: bool = False) -> list[str]:
    """Panel ids, one per line (blank lines and ``#`` comments skipped), each well formed
    (:data:`PANEL_ID`) and none twice; errors name the line. ``empty``: a list without
    an id is read too (a study's, once every id on it was erased, :mod:`tradeoff.study.erase`).

    >>> read_panel_ids("# Prolific ids\\n5f8a2c1e9b\\n\\n60aa01\\n", "ids.txt")
    ['5f8a2c1e9b', '60aa01']
    """
    ids: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        pid = line.split("#", 1)[0].strip()
        if not pid:
            continue
        if not valid_panel_id(pid):
            raise InputError.single(
                source,
                f"line {number}",
                f"{pid[:80]!r} is not a usable panel id.",
                "use 1–64 letters, digits, '-', '_' or '.', starting with a letter or digit; "
                "one id per line.",
            )
        if pid in seen:
            raise InputError.single(
                source, f"line {number}", f"{pid!r} appears twice.", "give each id once."
            )
        seen.add(pid)
        ids.append(pid)
    if not ids and not empty:
        raise InputError.single(source, "", "names no panel id.", "give one id per line.")
    return ids
