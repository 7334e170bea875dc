"""The pick written back to an Optuna study (``select --optuna-storage``): the chosen trial and
what was decided, as the study's ``tradeoff_pick`` attribute. Reading trials into a pool is
:mod:`tradeoff.pool.searches`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from tradeoff.errors import InputError
from tradeoff.pool.meaning import row_number
from tradeoff.pool.searches import (
    PICK_ATTRIBUTE,
    TRIAL_COLUMN,
    _optuna,
    _shown_url,
)
from tradeoff.pool.tracking import _short
from tradeoff.text import clean_text

__all__ = ["RecordedPick", "record_pick"]


@dataclass(frozen=True)
class RecordedPick:
    """What :func:`record_pick` wrote: the storage (password hidden), the study, the
    picked trial's number, the study user attribute and its value."""

    storage: str
    study: str
    trial: int
    attribute: str
    value: dict[str, Any]


def _pool_study(pool_path: str | Path | None) -> str | None:
    """The study a pool was read from, as its provenance file says (None if it says none)."""
    if pool_path is None:
        return None
    side = Path(pool_path).with_suffix(".provenance.json")
    try:
        provenance = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(provenance, dict) or provenance.get("source") != "Optuna":
        return None
    study = provenance.get("study")
    return study if isinstance(study, str) else None


def record_pick(
    storage: str,
    study: Any,
    row: Mapping[str, Any],
    facts: Mapping[str, Any],
    *,
    source: str | Path = "pool",
    attribute: str = PICK_ATTRIBUTE,
) -> RecordedPick:
    """Set the user attribute ``attribute`` of the Optuna ``study`` (from
    :func:`open_study` of ``storage``) to the pick: the trial number of the pool ``row`` (its
    ``optuna_trial``), ``facts`` (the model's name, P(best), participants, sessions,
    scenario: :func:`tradeoff.choose.decide.decision_facts`) and the time (``decided``).

    Nothing is written when the row names no trial, when the pool's provenance (beside
    ``source``) says it was read from another study, or when the study has no completed
    trial of that number: each an :class:`~tradeoff.errors.InputError` naming the place.
    """
    shown = _shown_url(storage)
    number = row.get(TRIAL_COLUMN)
    if number is None or pd.isna(number):
        raise InputError.single(
            source,
            f"column {TRIAL_COLUMN!r}",
            f"the pool does not say which Optuna trial the picked model "
            f"{clean_text(str(row.get('model')))!r} is.",
            "build the pool with tradeoff pool from-optuna (it writes optuna_trial).",
        )
    number = row_number(row, TRIAL_COLUMN, source)
    read_from = _pool_study(source)
    if read_from is not None and read_from != study.study_name:
        raise InputError.single(
            source,
            "provenance",
            f"the pool was read from the study {clean_text(read_from)!r}, not "
            f"{clean_text(study.study_name)!r}; nothing was written.",
            f"give --optuna-study {clean_text(read_from)}.",
        )
    optuna = _optuna(shown)
    found = [t for t in study.get_trials(deepcopy=False) if t.number == number]
    if not found or found[0].state != optuna.trial.TrialState.COMPLETE:
        state = f"is {found[0].state.name.lower()}" if found else "does not exist"
        raise InputError.single(
            source,
            f"row of model {clean_text(str(row.get('model')))!r}",
            f"trial {number} of the study {clean_text(study.study_name)!r} {state}; "
            "nothing was written.",
            "give the storage and study the pool was read from (--optuna-storage, --optuna-study).",
        )
    value = {
        "trial": number,
        **facts,
        "decided": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    try:
        study.set_user_attr(attribute, value)
    except Exception as exc:
        raise InputError.single(
            shown,
            f"study {clean_text(study.study_name)!r}",
            f"Optuna refused the write: {_short(exc)}",
            "check that the storage can be written to.",
        ) from None
    return RecordedPick(shown, study.study_name, number, attribute, value)
