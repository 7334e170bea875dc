"""What a scenario's options are: classifiers, or options described by their aspects alone.

A scenario with two or more ``[[classes]]`` (and a ``[population]`` to build classifiers
from) asks about classifiers; one with no classes and two or more ``[[attributes]]``
describes each option by those attributes alone (a language model by its benchmark scores
and CO₂ cost, a train trip by its fare and travel time). :func:`options_fault` says what is
wrong with a scenario that is neither.
"""

from __future__ import annotations

from pydantic_core import PydanticCustomError


def options_fault(k: int, n: int, population: object) -> tuple[str, str, str] | None:
    """(Key at fault, what is wrong, the fix) for a scenario with ``k`` classes, ``n``
    attributes and ``population`` (``None`` when it has none), or ``None`` when its options
    are well described.

    >>> options_fault(2, 0, "softmax"), options_fault(0, 2, None)
    (None, None)
    >>> options_fault(0, 1, None)[0], options_fault(0, 3, "softmax")[0]
    ('classes', 'population')
    """
    fault: tuple[str, str, str] | None = None
    if k == 0 and n < 2:
        fault = (
            "classes",
            "a scenario needs at least 2 [[classes]] (options are classifiers) or, "
            "without classes, at least 2 [[attributes]] (options described by their "
            f"aspects alone); this one has no classes and {n} attribute"
            f"{'' if n == 1 else 's'}",
            "add [[classes]] with a [population], or describe the options by 2 or more "
            "[[attributes]] (name, kind = cost or reward, range, label)",
        )
    elif k == 1:
        fault = (
            "classes",
            "a scenario needs at least 2 [[classes]], this one has 1",
            "add a second class, or remove the class and describe the options by 2 or "
            "more [[attributes]] alone",
        )
    elif k and population is None:
        fault = (
            "population",
            "a scenario with [[classes]] needs a [population] to build the classifiers "
            "it asks about",
            'add [population] with kind = "softmax-linear" and a seed, or kind = '
            '"probabilities" and a path',
        )
    elif not k and population is not None:
        fault = (
            "population",
            "[population] describes class probabilities, and this scenario has no "
            "[[classes]] (its options are described by their attributes alone)",
            "remove [population]",
        )
    return fault


def check_options(k: int, n: int, population: object) -> None:
    """Raise the :func:`options_fault` of a scenario, if any, as a ``PydanticCustomError``
    of type ``options`` whose context names the key at fault and the fix (the scenario's
    reader reports it there).

    >>> check_options(0, 1, None)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.PydanticCustomError: a scenario needs at least 2 [[classes]] \
(options are classifiers) or, without classes, at least 2 [[attributes]] (options described \
by their aspects alone); this one has no classes and 1 attribute
    """
    fault = options_fault(k, n, population)
    if fault is not None:
        where, message, fix = fault
        raise PydanticCustomError(
            "options", "{message}", {"message": message, "where": where, "fix": fix}
        )
