"""The pick written back for scikit-learn: what a pool measured from estimators was for.

:func:`record_estimator` refits the picked estimator (or its variant tuned to a person,
:mod:`tradeoff.pool.tuned`) on the whole dataset and pickles it beside the pool, as
``<pool>.pick-<n>.pkl`` (a new file each time; nothing there is replaced), then appends a
line to ``<pool>.picks.jsonl`` saying what was picked: the model, its estimator and
parameters, the decision's facts, the pickle, its SHA-256, the packages that loading it
imports (``loads_with``: a variant tuned to a person is tradeoff's own
:class:`~tradeoff.pool.rule.PersonalRule`, so it loads only where tradeoff is installed)
and the time. A pickle runs code when it is loaded: load only one you made.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tradeoff.errors import InputError
from tradeoff.pool.sklearn_inputs import Dataset, _named, _sklearn, _user_code_failed
from tradeoff.pool.sources import Pick
from tradeoff.pool.tuned import Tuning, with_variants
from tradeoff.text import clean_text

__all__ = ["RecordedEstimator", "pool_tuning", "record_estimator"]


@dataclass(frozen=True)
class RecordedEstimator:
    """What :func:`record_estimator` wrote: the model, the pickle of its estimator fitted
    on the whole dataset, the pickle's SHA-256, and the log of picks the line went to."""

    model: str
    pickle: str
    sha256: str
    log: str
    value: dict[str, Any]

    @property
    def needs_tradeoff(self) -> bool:
        """Whether loading the pickle needs tradeoff installed (a rule tuned to a person)."""
        return "tradeoff" in self.value.get("loads_with", ())


class _Imports(pickle.Unpickler):
    """Reads a pickle back and notes the top-level package of every class it imports."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.packages: set[str] = set()

    def find_class(self, module: str, name: str) -> Any:
        self.packages.add(module.partition(".")[0])
        return super().find_class(module, name)


def loads_with(data: bytes) -> list[str]:
    """The packages (not Python's own) that loading the pickle ``data`` imports, sorted:
    what a machine needs installed to load it. Only for a pickle made here, from the
    fitted estimator (reading it back runs its code).

    >>> from tradeoff.pool.rule import PersonalRule
    >>> loads_with(pickle.dumps(PersonalRule(None, (0.5, 0.5), (0.4, 0.6))))
    ['tradeoff']
    """
    reader = _Imports(data)
    reader.load()
    return sorted(p for p in reader.packages if p not in sys.stdlib_module_names)


def pool_tuning(pool: str | Path) -> Tuning | None:
    """The tuning a measured pool's variants were made with: the ``tuned`` its provenance
    file (``<pool>.provenance.json``, as :func:`~tradeoff.pool.measure` wrote it) holds, or
    None when there is no such file or it names no tuning (a pool without variants).

    A provenance file that cannot be read, or whose ``tuned`` lacks its participant,
    weights or prevalences, is an :class:`~tradeoff.errors.InputError` naming it.
    """
    side = Path(pool).with_suffix(".provenance.json")
    if not side.is_file():
        return None
    fix = "restore the file pool from-sklearn wrote beside the pool, or measure the pool again."
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError.single(
            side, "provenance", f"cannot be read as JSON ({exc}).", fix
        ) from None
    tuned = data.get("tuned") if isinstance(data, dict) else None
    if tuned is None:
        return None
    try:
        return Tuning(
            str(tuned["participant"]),
            tuple(float(w) for w in tuned["weights"]),
            tuple(float(z) for z in tuned["prevalences"]),
        )
    except (KeyError, TypeError, ValueError):
        raise InputError.single(
            side, "tuned", "does not hold a participant, weights and prevalences.", fix
        ) from None


def _new_pickle(pool: Path) -> Path:
    """``<pool>.pick-<n>.pkl`` for the first ``n`` not taken."""
    n = 1
    while (path := pool.with_name(f"{pool.stem}.pick-{n}.pkl")).exists():
        n += 1
    return path


def record_estimator(
    estimators: Mapping[str, Any] | Sequence[Any],
    dataset: Dataset,
    pick: Pick,
    *,
    tuned: Tuning | None = None,
) -> RecordedEstimator:
    """Refit the estimator of ``pick.row``'s model on the whole ``dataset``, pickle it
    beside ``pick.pool_path`` and append what was picked to ``<pool>.picks.jsonl``.

    Nothing is written when the pick names no pool file, or a model that is none of
    ``estimators`` (nor a variant of one for ``tuned``), or when the estimator fails to
    fit: each an :class:`~tradeoff.errors.InputError` naming the model and the fix.
    """
    if pick.pool_path is None:
        raise InputError.single(
            "pick",
            "pool",
            "no pool file to write the picked estimator beside.",
            "give the pool file the pick was made from.",
        )
    pool = Path(pick.pool_path)
    model = str(pick.row.get("model"))
    named = _named(estimators, "estimators")
    named, _, _ = with_variants(named, tuned, list(dataset.classes))
    if model not in named:
        listed = ", ".join(repr(clean_text(n)) for n in list(named)[:12])
        raise InputError.single(
            pool,
            f"model {clean_text(model)!r}",
            "is none of the estimators measured, so it cannot be refitted; nothing was written.",
            "give the estimators the pool was measured from (a variant tuned to a person "
            f"is made again from the pool's provenance file): {listed}.",
        )
    _sklearn(str(pool))
    from sklearn.base import clone

    estimator = named[model]
    try:
        fitted = clone(estimator).fit(dataset.x, dataset.y)
        data = pickle.dumps(fitted)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the estimator's own code
        raise _user_code_failed(
            "estimators",
            f"estimator {clean_text(model)!r}",
            "failed to fit on the whole dataset or to pickle",
            exc,
            "fix the estimator, or pick another.",
        ) from None
    target = _new_pickle(pool)
    with open(target, "xb") as out:  # never replaces a file
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    params = getattr(estimator, "get_params", None)
    value: dict[str, Any] = {
        "model": model,
        "estimator": repr(estimator),
        "params": {k: repr(v) for k, v in params(deep=False).items()} if params else {},
        "fitted_on": f"{dataset.description}, all {len(dataset.y)} cases",
        "pickle": target.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "loads_with": loads_with(data),
        **dict(pick.facts),
        "decided": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    log = pool.with_name(f"{pool.stem}.picks.jsonl")
    with open(log, "a", encoding="utf-8") as out:  # one line a pick, none rewritten
        out.write(json.dumps(value, default=str) + "\n")
        out.flush()
        os.fsync(out.fileno())
    return RecordedEstimator(model, str(target), value["sha256"], str(log), value)
