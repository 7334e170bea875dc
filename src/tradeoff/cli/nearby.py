""" "Did you mean …?" for a mistyped study folder or participant id: a study folder that does
not exist beside one of a close name that holds a study (:func:`open_study`,
:func:`study_folder`), a participant id the study does not have beside one it has
(:func:`participant_of`, :func:`erase_target`).

Names are matched as the command line's other suggestions match them (:mod:`difflib`, its
default cutoff 0.6, as for a mistyped option), after one step that catches what eyes miss:
an id equal to one but for case, O for 0, l or I for 1, or _ for - is that one. A
suggestion is made only when one name is closest: among ``p01`` … ``p20``, ``p1`` is as
close to ``p10`` as to ``p01``, and nothing is suggested.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.errors import InputError

if TYPE_CHECKING:
    from tradeoff.study.folder import Study

CUTOFF = 0.6
"""How close a name must be (difflib's ratio) to be suggested."""

SIBLINGS_READ = 10_000
"""At most this many entries of a folder are looked at for a study of a close name."""

_LOOK_ALIKE = str.maketrans({"o": "0", "l": "1", "i": "1", "_": "-"})


def _plain(name: str) -> str:
    return name.strip().lower().translate(_LOOK_ALIKE)


def closest(word: str, names: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The one name of ``names`` closest to ``word``, if one is close and closest.

    >>> ids = [f"p{i:02d}" for i in range(1, 21)]
    >>> closest("p0l", ids), closest("P-0O1", ["p-001", "p-002"]), closest("p1", ids)
    ('p01', 'p-001', None)
    >>> closest("my-stdy", ["my-study", "other"]), closest("zzz", ["my-study"])
    ('my-study', None)
    """
    known = list(dict.fromkeys(names))
    same = [n for n in known if _plain(n) == _plain(word)]
    if len(same) == 1:
        return same[0]
    close = difflib.get_close_matches(word, known, n=2, cutoff=cutoff)
    if not close:
        return None
    if len(close) == 2:
        first, second = (difflib.SequenceMatcher(None, word, c).ratio() for c in close)
        if not first > second:  # two as close: guessing one would mislead
            return None
    return close[0]


def study_folder(folder: str | Path) -> None:
    """Refuse a study folder that does not exist when a folder beside it, of a close name,
    holds a study: "did you mean …?". Anything else is left to the study's loader."""
    from tradeoff.study.folder import STUDY_FILE

    root = Path(folder)
    if root.exists() or not root.name:
        return
    try:
        entries = list(islice(root.parent.iterdir(), SIBLINGS_READ))
        studies = [p.name for p in entries if (p / STUDY_FILE).is_file()]
    except OSError:
        return
    near = closest(root.name, studies)
    if near is not None:
        raise InputError.single(
            folder, "", "does not exist.", f"did you mean {root.parent / near}?"
        )


def open_study(folder: str | Path) -> Study:
    """The study in ``folder`` (:func:`tradeoff.study.folder.load_study`), a mistyped
    folder's name refused with the study of a close name (:func:`study_folder`)."""
    from tradeoff.study.folder import load_study

    study_folder(folder)
    return load_study(folder)


def _no_such(study: Study, given: str, also: str = "") -> InputError:
    names = [*study.participants, *study.panel_ids.values()]
    near = closest(given, names)
    fix = f"use an id that study status lists{also}"
    return InputError.single(
        study.path,
        "participant",
        f"no participant {given!r} in this study.",
        fix if near is None else f"did you mean {near}? ({fix})",
    )


def participant_of(study: Study, given: str) -> str:
    """The participant ``given`` names (their id, or their panel id); one the study does not
    have is refused, with the id of a close name if there is one."""
    by_panel_id = {panel_id: pid for pid, panel_id in study.panel_ids.items()}
    if given not in study.participants and given in by_panel_id:
        return by_panel_id[given]
    if given not in study.participants:
        raise _no_such(study, given)
    return given


def erase_target(study: Study, given: str) -> str:
    """The participant ``study erase`` erases for ``given`` (their id, or their panel id,
    erased ones and pilots moved aside too); one the study never had is refused before
    anything else is said, with the id of a close name if there is one."""
    from tradeoff.study.entries import read_entries
    from tradeoff.study.erasures import erased

    gone = erased(study.path)
    pid = given
    if pid not in study.participants and study.panel is not None:
        of = study.panel.participant_of(pid)  # a panel id names them (erased ones too)
        pid = of if of in study.participants or of in gone else pid
    if pid in study.participants or pid in gone or pid in read_entries(study.path).people:
        return pid
    raise _no_such(study, given, " (or their panel id)")
