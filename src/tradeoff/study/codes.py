"""Access codes: each participant's code opens their own session only.

An access code is 16 characters of Crockford's base 32 (80 bits), shown in groups of four
(``K7QM-2XVD-…``); typing is forgiving (case, spaces, dashes and look-alikes do not
matter). Codes are checked with scrypt over a per-study random salt, so a stolen
``study.json`` does not give the codes away. The codes are shown once, when the study is
made, and written to a codes file only on request (:func:`write_codes`).

How costly scrypt is made (its ``n``) is written in ``study.json`` (``code_hash``) and read
back, so a study keeps the cost it was made with. A study made now uses n = 2¹⁰ (1 MB, about
2.5 ms a check on the project's CPU); studies made by 0.8.0 and before used n = 2¹⁴ (16 MB,
40 ms).
A code is 80 random bits, not a password a person chose: someone holding ``study.json``
needs about 2⁷⁹ guesses for one code (2⁷¹ for any of 300), over 10¹⁸ core-years at either
cost, so the larger one bought no safety. It did cost the study server: one check per
participant arriving, 11 % of a server's CPU while 300 participants arrive in 20 s, and
most of the wait between typing a code and the first question (p95 1.2–1.5 s against
0.2 s at n = 2¹⁰, ``benchmarks/study_load.py``).
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from tradeoff.errors import InputError
from tradeoff.record.records import check_participant
from tradeoff.study.files import write_all

#: Letters of an access code: Crockford's base 32 (no I, L, O or U), 5 bits each; a typed
#: O counts as 0 and I or L as 1.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 16
CODE_BITS = 80
#: scrypt's cost n for a study made now, and for every study made by 0.8.0 or before.
CODE_COST = 2**10
OLD_CODE_COST = 2**14
#: ``study.json``'s ``code_hash``: how its codes are hashed, by the cost n it names.
_METHOD = "scrypt n={n} r=8 p=1 over the code without dashes, in capitals"
_METHOD_COSTS = {_METHOD.format(n=n): n for n in (CODE_COST, OLD_CODE_COST)}


#: Participant ids that only a link makes (``pilot-``: the pilot link; ``panel-``: a
#: panel's link, :meth:`tradeoff.study.panel.Panel.participant_of`), in any case: a
#: participant with an access code is never named so, so that no one is taken for a pilot
#: and no panel id comes into a session made for a code.
LINK_PREFIXES = ("pilot-", "panel-")


def check_code_participant(participant: str) -> str:
    """A participant id for an access code: a safe folder name
    (:func:`~tradeoff.record.records.check_participant`), not beginning with a prefix
    that only a link makes (:data:`LINK_PREFIXES`).

    >>> check_code_participant("p01")
    'p01'
    >>> check_code_participant("pilot-000000000000")
    Traceback (most recent call last):
    tradeoff.errors.InputError: ...
    """
    check_participant(participant)
    if participant.lower().startswith(LINK_PREFIXES):
        raise InputError.single(
            "participant id",
            repr(participant),
            f"begins with {participant[:6]!r}, which only the pilot or a panel's link gives.",
            "name participants with access codes otherwise, e.g. p01.",
        )
    return participant


def new_code() -> str:
    """A fresh random access code, grouped by four: 16 characters, 80 bits.

    >>> len(new_code().replace("-", "")), new_code().count("-")
    (16, 3)
    """
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def normalise_code(text: str) -> str:
    """A typed code as stored: capitals, without spaces or dashes, look-alikes read as the
    code's own letters (O as 0, I and L as 1).

    >>> normalise_code(" k7qm-2xvd 9hjk-abOl ")
    'K7QM2XVD9HJKAB01'
    """
    table = str.maketrans({"O": "0", "I": "1", "L": "1"})
    return "".join(ch for ch in text.upper() if ch.isalnum()).translate(table)


def hash_code(code: str, salt: bytes, cost: int = CODE_COST) -> str:
    """The salted scrypt hash of a code (hex), at scrypt's cost n = ``cost``."""
    return hashlib.scrypt(
        normalise_code(code).encode(), salt=salt, n=cost, r=8, p=1, dklen=32
    ).hex()


def code_method(cost: int) -> str:
    """The ``code_hash`` a study file names for codes hashed at ``cost``.

    >>> code_method(CODE_COST)
    'scrypt n=1024 r=8 p=1 over the code without dashes, in capitals'
    """
    return _METHOD.format(n=cost)


def code_cost(method: object) -> int:
    """The scrypt cost n of a study file's ``code_hash`` (``None``: a study that did not
    name it, made when every study used :data:`OLD_CODE_COST`); a ``ValueError`` for any
    other text.

    >>> code_cost(code_method(OLD_CODE_COST)), code_cost(None)
    (16384, 16384)
    """
    if method is None:
        return OLD_CODE_COST
    if isinstance(method, str) and method in _METHOD_COSTS:
        return _METHOD_COSTS[method]
    known = " or ".join(repr(m) for m in _METHOD_COSTS)
    raise ValueError(f"{str(method)[:80]!r} is not a way codes are hashed ({known})")


def write_codes(codes_file: Path, codes: dict[str, str]) -> None:
    """The access codes as CSV, readable by the owner only (0600), in a file that must not
    exist yet (not even as a dangling link): created with ``O_EXCL`` and synced."""
    import csv
    import io

    if not codes_file.parent.is_dir():
        raise InputError.single(
            codes_file, "", "its folder does not exist.", "give a file in an existing folder."
        )
    try:
        fd = os.open(codes_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise InputError.single(
            codes_file,
            "",
            "exists already (a file or a link); codes are never written over anything.",
            "give a new file name.",
        ) from None
    except OSError as exc:
        raise InputError.single(
            codes_file, "", f"cannot be created ({exc.strerror}).", "give a file you can write."
        ) from None
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["participant", "access_code"])
    writer.writerows(codes.items())
    try:
        try:
            write_all(fd, buffer.getvalue().encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:  # a full disk: no codes file, so no study either
        codes_file.unlink(missing_ok=True)
        raise InputError.single(
            codes_file,
            "",
            f"the access codes could not be written ({exc.strerror or exc}); no study was "
            "made and no codes file was left.",
            "free some space (or give a folder with room), then run study create again.",
        ) from None
