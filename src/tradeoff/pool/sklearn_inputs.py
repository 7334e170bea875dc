"""What ``pool from-sklearn`` reads before it measures: the dataset (:func:`load_dataset`: a
CSV or Parquet file with a target column, or one of scikit-learn's bundled datasets) and the
estimators (:func:`load_estimators`: a Python file or module naming them, or a pickle), each
checked with a located error, and the bounds that keep a mistyped number from running for
hours. Measuring them is :mod:`tradeoff.pool.measuring`."""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from tradeoff.errors import InputError
from tradeoff.pool.table import read_table
from tradeoff.text import count

__all__ = [
    "MAX_FOLDS",
    "MAX_LATENCY_REPEATS",
    "SHIPPED_DATASETS",
    "Dataset",
    "class_column",
    "load_dataset",
    "load_estimators",
]


#: scikit-learn's bundled datasets that need no download, by the names ``--dataset`` takes.
SHIPPED_DATASETS = ("breast_cancer", "iris", "wine", "digits")

#: The attribute a module of estimators is read from when none is named.
ESTIMATOR_ATTRIBUTES = ("ESTIMATORS", "estimators", "MODELS", "models")

INSTALL = "install the extra: pip install 'tradeoff[sklearn]'"

#: Bounds on what is measured, so that a mistyped number fails at once with a message
#: instead of running for hours: single-case predictions timed per model, features (columns)
#: of a dataset, and the numbers (cases × features) it holds.
MAX_LATENCY_REPEATS = 10_000
MAX_FEATURES = 10_000
MAX_CELLS = 50_000_000
MAX_FOLDS = 100


def _user_code_failed(
    source: str, location: str, what: str, exc: BaseException, fix: str
) -> InputError:
    """The error for code from the user's files (an estimators file, a pickle, an
    estimator's fit or predict) that raised, or called ``sys.exit``: it is reported, never
    taken for success."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, SystemExit):
        detail = f"it called sys.exit({exc.code!r}) (SystemExit)"
    return InputError.single(source, location, f"{what}: {detail}.", fix)


def _sklearn(source: str) -> Any:
    try:
        import sklearn
    except ImportError:
        raise InputError.single(
            source, "", "measuring a pool needs scikit-learn, which is not installed.", INSTALL
        ) from None
    return sklearn


@dataclass(frozen=True)
class Dataset:
    """Features ``x`` (cases × features), labels ``y``, the class name of each label (in the
    order the recall columns take) and where the data came from."""

    x: NDArray[np.float64]
    y: NDArray[Any]
    classes: dict[Any, str]
    description: str
    source: str = ""


def class_column(name: str) -> str:
    """The pool column of a class's recall: ``recall_`` and the name in lower case, each run
    of other characters than letters and digits an underscore.

    >>> class_column("Malignant lump")
    'recall_malignant_lump'
    """
    return "recall_" + (re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_") or "class")


def load_dataset(spec: str, target: str | None = None) -> Dataset:
    """A dataset by name or file.

    ``spec`` is one of scikit-learn's bundled datasets (:data:`SHIPPED_DATASETS`, also as
    ``load_breast_cancer`` or ``sklearn:breast_cancer``), whose class names are its
    ``target_names``; or a CSV or Parquet file with a ``target`` column holding each case's
    class (every other column is a numeric feature).

    Raises
    ------
    InputError
        An unknown name, a missing file or target column, or a feature that is not a number
        (naming the column and the first row).
    """
    name = spec.removeprefix("sklearn:").removeprefix("load_")
    if name in SHIPPED_DATASETS and not Path(spec).is_file():
        _sklearn(spec)
        datasets = importlib.import_module("sklearn.datasets")
        bunch = getattr(datasets, f"load_{name}")()
        labels = np.unique(bunch.target)
        names = [str(n) for n in bunch.target_names]
        return Dataset(
            np.asarray(bunch.data, dtype=np.float64),
            np.asarray(bunch.target),
            {label.item(): names[int(label)] for label in labels},
            f"scikit-learn load_{name}",
            f"sklearn:{name}",
        )
    path = Path(spec)
    if not path.is_file():
        raise InputError.single(
            spec,
            "",
            "is neither a file nor one of scikit-learn's bundled datasets.",
            f"give a CSV file with a --target column, or one of {', '.join(SHIPPED_DATASETS)}.",
        )
    frame = read_table(path)
    if target is None:
        raise InputError.single(
            path, "", "no target column named.", "name the column of each case's class: --target."
        )
    if target not in frame.columns:
        raise InputError.single(
            path,
            f"column {target!r}",
            "the target column is not in the file.",
            f"the columns are {', '.join(repr(str(c)) for c in frame.columns[:12])}.",
        )
    y = frame[target]
    if y.isna().any():
        row = int(np.flatnonzero(y.isna().to_numpy())[0]) + 1
        raise InputError.single(
            path, f"row {row}, column {target!r}", "the class is missing.", "give every case one."
        )
    if len(frame) == 0:
        raise InputError.single(
            path, "", "has a header but no cases.", "give a file with one row per case."
        )
    features = frame.drop(columns=[target])
    if features.shape[1] == 0:
        raise InputError.single(
            path, "", f"has no feature columns besides {target!r}.", "add the cases' features."
        )
    if features.shape[1] > MAX_FEATURES or features.size > MAX_CELLS:
        raise InputError.single(
            path,
            "",
            f"has {features.shape[1]:,} feature columns and {len(frame):,} cases; at most "
            f"{MAX_FEATURES:,} features and {MAX_CELLS:,} numbers are measured.",
            "select the features (or a sample of the cases) that the models use.",
        )
    if y.nunique() < 2:
        raise InputError.single(
            path,
            f"column {target!r}",
            f"holds {count(int(y.nunique()), 'class', 'classes')}; recall per class needs at "
            "least 2.",
            "give cases of every class.",
        )
    for column in features.columns:
        values = pd.to_numeric(features[column], errors="coerce")
        bad = values.isna().to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0]) + 1
            raise InputError.single(
                path,
                f"row {row}, column {column!r}",
                f"the feature is not a number ({features[column].iloc[row - 1]!r}).",
                "encode it as numbers, or drop the column.",
            )
        features[column] = values
    classes = sorted(y.unique().tolist(), key=str)
    return Dataset(
        features.to_numpy(dtype=np.float64),
        y.to_numpy(),
        {label: str(label) for label in classes},
        f"{path.name}, target column {target!r}",
        str(path),
    )


def _estimator_name(est: Any) -> str:
    last = est.steps[-1][1] if hasattr(est, "steps") else est
    inner = getattr(last, "estimator", None)  # a wrapper: name what it wraps
    return type(inner if inner is not None and hasattr(last, "threshold") else last).__name__


def _named(found: Any, source: str) -> dict[str, Any]:
    if isinstance(found, Mapping):
        out = {str(k): v for k, v in found.items()}
    elif isinstance(found, list | tuple):
        kinds = [_estimator_name(est) for est in found]
        total = {k: kinds.count(k) for k in kinds}
        seen: dict[str, int] = {}
        out = {}
        for kind, est in zip(kinds, found, strict=True):
            seen[kind] = seen.get(kind, 0) + 1
            out[kind if total[kind] == 1 else f"{kind}-{seen[kind]}"] = est
    else:
        raise InputError.single(
            source,
            "",
            f"holds a {type(found).__name__}, not a list or dict of estimators.",
            "give a list of estimators, or a dict of name → estimator.",
        )
    bad = [n for n, e in out.items() if not (hasattr(e, "fit") and hasattr(e, "predict"))]
    if bad:
        raise InputError.single(
            source,
            f"estimator {bad[0]!r}",
            "has no fit and predict methods, so it is not a scikit-learn estimator.",
            "give scikit-learn estimators (or objects with fit and predict).",
        )
    if len(out) < 2:
        raise InputError.single(
            source,
            "",
            f"holds {count(len(out), 'estimator')}; a pool needs at least 2.",
            "add more.",
        )
    return out


def load_estimators(spec: str) -> dict[str, Any]:
    """Estimators by name, from a pickle, a Python file or a module.

    ``spec`` is a pickle file (``.pkl``, ``.pickle``, ``.joblib``) of a list or dict of
    estimators, or a Python file or importable module (``models.py``, ``my.models``),
    optionally with the attribute after a colon (``models.py:CANDIDATES``; default the
    first of ``ESTIMATORS``, ``estimators``, ``MODELS``, ``models``), which holds a list or
    a dict of name → estimator, or a function returning one. A list's estimators are
    named by their class (``LogisticRegression``, ``LogisticRegression-2``, …).

    A pickle runs code when it is read: give only your own files.
    """
    path_text, _, attribute = spec.partition(":")
    if len(path_text) == 1 and attribute:  # a Windows drive letter, not an attribute
        path_text, attribute = spec, ""
    path = Path(path_text)
    if path.suffix.lower() in (".pkl", ".pickle", ".joblib"):
        if not path.is_file():
            raise InputError.single(path, "", "file not found.", "check the path.")
        _sklearn(spec)
        try:
            with path.open("rb") as fh:
                found = pickle.load(fh)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the pickle runs code: sys.exit included
            raise _user_code_failed(
                str(path), "", "cannot be unpickled", exc, "give a pickled list or dict."
            ) from None
        return _named(found, str(path))
    _sklearn(spec)
    try:
        if path.suffix == ".py":
            if not path.is_file():
                raise InputError.single(path, "", "file not found.", "check the path.")
            module_spec = importlib.util.spec_from_file_location(f"_pool_{path.stem}", path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            sys.path.insert(0, str(Path.cwd()))
            try:
                module = importlib.import_module(path_text)
            finally:
                sys.path.remove(str(Path.cwd()))
    except (InputError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # the file's own code: sys.exit included
        raise _user_code_failed(
            path_text,
            "",
            "cannot be imported",
            exc,
            "give a Python file or module that defines a list or dict of estimators.",
        ) from None
    names = (attribute,) if attribute else ESTIMATOR_ATTRIBUTES
    found = next((getattr(module, n) for n in names if hasattr(module, n)), None)
    if found is None:
        raise InputError.single(
            path_text,
            attribute or "",
            f"defines none of {', '.join(names)}.",
            "define ESTIMATORS = [...] (or a dict of name → estimator), or name the attribute "
            "after a colon: models.py:CANDIDATES.",
        )
    if callable(found) and not hasattr(found, "fit"):
        try:
            found = found()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise _user_code_failed(
                path_text,
                attribute or "",
                "the function giving the estimators failed",
                exc,
                "fix the function, or define the estimators as a list or dict.",
            ) from None
    return _named(found, path_text)
