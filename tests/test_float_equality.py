"""No branch hinges on the last bits of a float: no new ``==`` or ``!=`` between floats in
``src/`` outside :mod:`tradeoff.stable` (docs/architecture.md, "The same result on every
machine").

A comparison is taken to be between floats when one side is a float literal, a call of
``float``, of a ``math`` or numpy function that returns floats, a true division, or a name
or attribute that holds floats in this code base (:data:`FLOAT_NAMES`). The comparisons of
that kind that are right as they are, each with its reason, are :data:`ALLOWED`; a new one
is either made tolerant (:func:`tradeoff.ask.queries.close_values`,
:func:`tradeoff.stable.settled`, :func:`tradeoff.stable.rounded_rows`) or added there with
why it cannot tip on the last bits.
"""

from __future__ import annotations

import ast

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.core

SRC = ROOT / "src"
#: The module whose helpers exist to compare floats.
EXEMPT = {"tradeoff/stable.py"}
#: Names, attributes and functions that hold or return floats (or arrays or tuples of them)
#: in this code base.
FLOAT_NAMES = frozenset(
    {
        "threshold",
        "thresholds",
        "diff",
        "psi",
        "p_best",
        "weights",
        "slip_rate",
        "accuracies",
        "recalls",
        "attributes",
        "params",
        "priors",
        "swing",
        "margin",
        "_preference",
        "shown_difference",
    }
)
#: numpy and math functions whose result is not a float (counts, indices, truth values).
NOT_FLOAT = frozenset(
    {"isnan", "isfinite", "isinf", "isclose", "argmax", "argmin", "argsort", "flatnonzero"}
)
#: (file under src/, the comparison as ``ast.unparse`` writes it): why it is right as it is.
ALLOWED = {
    (
        "tradeoff/pool/meaning.py",
        "np.floor(np.where(ok, array, 0.0)) == np.where(ok, array, 0.0)",
    ): "whether a user's count is a whole number: floor is exact, so equal means integral",
    (
        "tradeoff/ask/population.py",
        "m == 1.0",
    ): "a guard before dividing by 1 − m; an m within the last bits of 1 gives the same cut",
    (
        "tradeoff/choose/scorer_inputs.py",
        "np.ndim(label) != 0",
    ): "a count of dimensions, an integer: whether a label is a single value",
    (
        "tradeoff/choose/change_words.py",
        "factor == 1.0",
    ): "the factor is set to exactly 1.0 for a tie after rounding (robustness.weight_change)",
    (
        "tradeoff/learn/particle_move.py",
        "powers[-1] != 1.0",
    ): "skips multiplying by 1.0, which changes nothing either way",
    (
        "tradeoff/learn/probabilistic.py",
        "consistent == 0.0",
    ): "np.clip's bounds, returned exactly; a value a bit inside is split, which is continuous",
    (
        "tradeoff/learn/probabilistic.py",
        "consistent == 1.0",
    ): "np.clip's bounds, returned exactly; a value a bit inside is split, which is continuous",
}


def float_operand(node: ast.expr) -> bool:
    """Whether ``node`` is taken to hold a float (see the module docstring)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Div)
    if isinstance(node, ast.Subscript):
        return float_operand(node.value)
    if isinstance(node, ast.Name):
        return node.id in FLOAT_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in FLOAT_NAMES
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id == "float" or func.id in FLOAT_NAMES
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in {"math", "np", "numpy"}
        ):
            return func.attr not in NOT_FLOAT
        return isinstance(func, ast.Attribute) and func.attr in FLOAT_NAMES
    return False


def float_equalities(source: str) -> list[tuple[int, str]]:
    """(line, comparison) of every ``==`` or ``!=`` in ``source`` with a float operand.

    >>> float_equalities("if x == 0.5 or n != 2:\\n    pass\\nok = a.threshold != b")
    [(1, 'x == 0.5'), (3, 'a.threshold != b')]
    """
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            pair = operands[i], operands[i + 1]
            if isinstance(op, (ast.Eq, ast.NotEq)) and any(map(float_operand, pair)):
                text = ast.unparse(ast.Compare(pair[0], [op], [pair[1]]))
                out.append((node.lineno, text))
    return sorted(out)


def found_in_src() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name in EXEMPT:
            continue
        for line, text in float_equalities(path.read_text(encoding="utf-8")):
            found.setdefault((name, text), []).append(line)
    return found


def test_no_new_float_equality_in_src() -> None:
    found = found_in_src()
    new = [
        f"src/{name}:{lines[0]}: {text}"
        for (name, text), lines in found.items()
        if (name, text) not in ALLOWED
    ]
    assert not new, (
        "compare floats with a tolerance (tradeoff.ask.queries.close_values, "
        "tradeoff.stable.settled or rounded_rows), or add the comparison to ALLOWED with why "
        "it cannot tip on the last bits:\n" + "\n".join(new)
    )
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"allowed comparisons no longer in src/ (remove them): {stale}"


def test_the_check_finds_a_planted_comparison() -> None:
    planted = (
        "def same(a, b):\n"
        "    return a.threshold == b.threshold and a.pair == b.pair\n"
        "x = float(y) != z\n"
        "done = n == 3 and name != 'a'\n"
        "half = total / 2 == same\n"
        "edge = values[-1] == -0.25\n"
        "agree = lambda a, b: _preference(a) == _preference(b)\n"
    )
    assert float_equalities(planted) == [
        (2, "a.threshold == b.threshold"),
        (3, "float(y) != z"),
        (5, "total / 2 == same"),
        (6, "values[-1] == -0.25"),
        (7, "_preference(a) == _preference(b)"),
    ]
