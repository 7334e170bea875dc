"""Conditions on a table's columns, parsed against an allow-list and evaluated without Python.

Pools are filtered (``where``) and constrained (``constraints``) by conditions a person
writes, such as ``"`CO₂ cost (kg)` <= 1 and IFEval >= 70"``. Such text comes from the command
line or a file and is never handed to ``eval``, ``pandas.eval`` or ``DataFrame.query``, whose
name resolution reaches the program's modules. Instead the text is parsed with :mod:`ast`
and every node is checked against an allow-list before anything is evaluated:

* column names (bare identifiers, or any text inside backticks);
* numbers, quoted strings (dates are compared as the column holds them), ``True``/``False``;
* comparisons ``== != < <= > >=`` (chains too), ``in`` / ``not in`` a literal list;
* ``and``, ``or``, ``not`` (also ``&``, ``|``, ``~``);
* arithmetic ``+ - * / // % **`` on numbers and columns, and unary ``-``/``+``; a
  condition in arithmetic counts as 1 when true and 0 when false, so
  ``(acc > 0.85) + (lat < 1.5) < 2`` means "not both" (the one rule; a logical or is
  ``or``); a division by zero gives inf or NaN, and a comparison with NaN is false.

Anything else (attribute access, calls, subscripts, ``@`` local variables, dunder names,
lambdas, comprehensions, f-strings, walrus) is refused with a message that says what was
found and at which character. The evaluation itself is a small interpreter over pandas
Series, so the only names it can reach are the table's columns.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"acc": [0.9, 0.8, 0.95], "CO₂ (kg)": [1.0, 0.2, 3.0]})
>>> parse_condition("acc >= 0.9 and `CO₂ (kg)` < 2", frame.columns).evaluate(frame).tolist()
[True, False, False]
>>> parse_condition("acc.__class__", frame.columns)
Traceback (most recent call last):
...
tradeoff.pool.expr.ExpressionError: character 4: attribute access ('.__class__') is not allowed
"""

from __future__ import annotations

import ast
import difflib
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

MAX_LENGTH = 2000
"""Longest condition accepted (characters); longer text is refused before parsing."""

MAX_DEPTH = 60
"""Deepest nesting of the parsed expression accepted."""

CONDITION_HELP = (
    "write a condition on column names, numbers and quoted text with comparisons "
    "(== != < <= > >=), in [..], and/or/not and arithmetic, with `backticks` around names "
    'that contain spaces, e.g. "`CO₂ cost (kg)` <= 1 and IFEval >= 70".'
)

_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_ARITH: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_REFUSED: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access",
    ast.Call: "a function call",
    ast.Subscript: "a subscript",
    ast.Lambda: "a lambda",
    ast.NamedExpr: "an assignment (:=)",
    ast.IfExp: "a conditional expression",
    ast.JoinedStr: "an f-string",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.Dict: "a dictionary",
    ast.Set: "a set",
    ast.Starred: "unpacking (*)",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.Slice: "a slice",
}


class ExpressionError(ValueError):
    """A condition that is refused: says what is wrong, where, and how to write it."""

    def __init__(self, problem: str, position: int | None = None) -> None:
        self.problem = problem
        self.position = position
        where = f"character {position + 1}: " if position is not None else ""
        super().__init__(f"{where}{problem}")


@dataclass(frozen=True)
class Condition:
    """A checked condition: only allow-listed nodes, only the table's columns."""

    text: str
    tree: ast.Expression
    names: dict[str, str]

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns the condition reads, in order of first use."""
        seen: dict[str, None] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name):
                seen[self.names.get(node.id, node.id)] = None
        return tuple(seen)

    def evaluate(self, frame: pd.DataFrame) -> NDArray[np.bool_]:
        """One true/false per row of ``frame``.

        Raises
        ------
        ExpressionError
            If the condition cannot be computed on these values (text in arithmetic, a
            comparison of text with numbers) or is not a true/false condition.
        """
        with np.errstate(all="ignore"):
            try:
                value = _Evaluator(frame, self.names).visit(self.tree.body)
            except ExpressionError:
                raise
            except (TypeError, ValueError, ArithmeticError) as exc:
                raise ExpressionError(f"cannot be computed on these values ({exc})") from None
        if isinstance(value, pd.Series):
            arr = value.to_numpy()
        else:
            arr = np.full(len(frame), value)
        if arr.dtype != np.bool_ or arr.shape != (len(frame),):
            raise ExpressionError("is not a true/false condition on each row")
        return np.asarray(arr, dtype=np.bool_)


def _substitute_backticks(text: str) -> tuple[str, dict[str, str], list[int]]:
    """Replace each `quoted name` by a placeholder identifier; map placeholder offsets back."""
    out: list[str] = []
    origin: list[int] = []
    names: dict[str, str] = {}
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i : i + 2])
                origin += [i, i + 1]
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise ExpressionError("a `backtick` name is not closed", i)
            name = text[i + 1 : end]
            if not name:
                raise ExpressionError("an empty `` name", i)
            token = f"__bt{len(names)}__"
            names[token] = name
            out.append(token)
            origin += [i] * len(token)
            i = end + 1
            continue
        out.append(ch)
        origin.append(i)
        i += 1
    origin.append(len(text))
    return "".join(out), names, origin


def _depth(node: ast.AST, limit: int) -> int:
    stack = [(node, 1)]
    deepest = 0
    while stack:
        current, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(current))
    return deepest


def parse_condition(text: str, columns: Iterable[object]) -> Condition:
    """Parse and check a condition against the allow-list and the table's column names.

    Parameters
    ----------
    text
        The condition as the person wrote it.
    columns
        The table's column names; any other name is refused (with the closest column).

    Raises
    ------
    ExpressionError
        For anything outside the allow-list, an unknown column, or text that does not parse.
    """
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"is {len(text)} characters long; at most {MAX_LENGTH} are read")
    if not text.strip():
        raise ExpressionError("is empty")
    for i, ch in enumerate(text):
        if ch == "@":
            raise ExpressionError("'@' (a reference to a program variable) is not allowed", i)
        if ord(ch) < 32 and ch not in "\t":
            raise ExpressionError("control characters are not allowed", i)
    source, names, origin = _substitute_backticks(text)
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        offset = None if exc.offset is None else min(max(exc.offset - 1, 0), len(origin) - 1)
        raise ExpressionError(
            f"does not parse ({exc.msg})", None if offset is None else origin[offset]
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"does not parse ({type(exc).__name__})") from None
    if _depth(tree, MAX_DEPTH) > MAX_DEPTH:
        raise ExpressionError(f"is nested more than {MAX_DEPTH} levels deep")
    known = {str(c) for c in columns}
    lead = len(source) - len(source.lstrip())

    def pos(node: ast.AST) -> int | None:
        col: int | None = getattr(node, "col_offset", None)
        if col is None:
            return None
        return origin[min(col + lead, len(origin) - 1)]

    for node in ast.walk(tree):
        for kind, what in _REFUSED.items():
            if isinstance(node, kind):
                snippet, at = "", pos(node)
                if isinstance(node, ast.Attribute):
                    snippet = f" ('.{node.attr}')"
                    end = node.value.end_col_offset
                    at = at if end is None else origin[min(end + lead, len(origin) - 1)]
                raise ExpressionError(f"{what}{snippet} is not allowed", at)
        if isinstance(node, ast.Name):
            if node.id in names:
                column = names[node.id]
            elif node.id.startswith("__"):
                raise ExpressionError(f"the name {node.id!r} is not allowed", pos(node))
            else:
                column = node.id
            if column not in known:
                close = difflib.get_close_matches(column, sorted(known), n=1, cutoff=0.5)
                hint = f" (did you mean `{close[0]}`?)" if close else ""
                raise ExpressionError(f"no column is named {column!r}{hint}", pos(node))
        elif isinstance(node, ast.Constant):
            if type(node.value) not in (int, float, str, bool):
                raise ExpressionError(f"the value {node.value!r} is not allowed", pos(node))
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _ARITH and not isinstance(node.op, (ast.BitAnd, ast.BitOr)):
                raise ExpressionError(
                    f"the operator {type(node.op).__name__} is not allowed", pos(node)
                )
        elif isinstance(node, ast.UnaryOp):
            pass  # Not, Invert, USub, UAdd: all allowed
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, (ast.In, ast.NotIn)):
                    if not isinstance(right, (ast.List, ast.Tuple)) or not all(
                        isinstance(e, ast.Constant) for e in right.elts
                    ):
                        raise ExpressionError(
                            "'in' needs a list of values, e.g. family in ['svm', 'tree']",
                            pos(right),
                        )
                elif type(op) not in _COMPARE:
                    raise ExpressionError(
                        f"the comparison {type(op).__name__} is not allowed", pos(node)
                    )
        elif isinstance(node, (ast.List, ast.Tuple)):
            if not all(isinstance(e, ast.Constant) for e in node.elts):
                raise ExpressionError("a list may hold only values", pos(node))
        elif not isinstance(
            node,
            (
                ast.Expression,
                ast.BoolOp,
                ast.And,
                ast.Or,
                ast.Load,
                ast.operator,
                ast.unaryop,
                ast.cmpop,
            ),
        ):
            raise ExpressionError(f"{type(node).__name__} is not allowed", pos(node))
    after_in = {
        id(right)
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        for op, right in zip(node.ops, node.comparators, strict=True)
        if isinstance(op, (ast.In, ast.NotIn))
    }
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and id(node) not in after_in:
            raise ExpressionError("a list may only follow 'in'", pos(node))
    return Condition(text, tree, names)


def _number(value: Any) -> Any:
    """A condition used in arithmetic counts as 0 or 1 (true is 1): ``(a > 1) + (b < 2)``
    is 0, 1 or 2 per row, never a logical or; numbers pass through.

    >>> float(_number(True)), _number(2.5)
    (1.0, 2.5)
    """
    if isinstance(value, bool | np.bool_):
        return np.float64(value)  # IEEE arithmetic, as every number here
    if isinstance(value, pd.Series) and value.dtype == np.bool_:
        return value.astype(np.float64)
    return value


class _Evaluator:
    """Evaluates a checked tree over a DataFrame's columns (no other name is reachable)."""

    def __init__(self, frame: pd.DataFrame, names: dict[str, str]) -> None:
        self.frame = frame
        self.names = names

    def visit(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int | float) and not isinstance(value, bool):
                return np.float64(value)  # IEEE arithmetic: 1/0 is inf, 0/0 is NaN
            return value
        if isinstance(node, ast.Name):
            return self.frame[self.names.get(node.id, node.id)]
        if isinstance(node, ast.BoolOp):
            values = [self._truth(self.visit(v)) for v in node.values]
            out = values[0]
            for v in values[1:]:
                out = (out & v) if isinstance(node.op, ast.And) else (out | v)
            return out
        if isinstance(node, ast.UnaryOp):
            operand = self.visit(node.operand)
            if isinstance(node.op, (ast.Not, ast.Invert)):
                truth = self._truth(operand)
                return (not truth) if isinstance(truth, bool) else ~truth
            self._numeric(operand, node)
            operand = _number(operand)
            return -operand if isinstance(node.op, ast.USub) else +operand
        if isinstance(node, ast.BinOp):
            left, right = self.visit(node.left), self.visit(node.right)
            if isinstance(node.op, ast.BitAnd):
                return self._truth(left) & self._truth(right)
            if isinstance(node.op, ast.BitOr):
                return self._truth(left) | self._truth(right)
            self._numeric(left, node)
            self._numeric(right, node)
            return _ARITH[type(node.op)](_number(left), _number(right))
        if isinstance(node, ast.Compare):
            left = self.visit(node.left)
            result: Any = True
            for op, comp in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, (ast.In, ast.NotIn)):
                    assert isinstance(comp, (ast.List, ast.Tuple))
                    values = [self.visit(e) for e in comp.elts]
                    hit = self._series(left).isin(values)
                    part = ~hit if isinstance(op, ast.NotIn) else hit
                    right = None
                else:
                    right = self.visit(comp)
                    part = _COMPARE[type(op)](left, right)
                result = part if result is True else (self._truth(result) & self._truth(part))
                left = right
            return result
        raise ExpressionError(f"{type(node).__name__} is not allowed")  # pragma: no cover

    def _series(self, value: Any) -> pd.Series:
        if isinstance(value, pd.Series):
            return value
        return pd.Series([value] * len(self.frame), index=self.frame.index)

    def _truth(self, value: Any) -> Any:
        if isinstance(value, bool | np.bool_):
            return bool(value)
        if isinstance(value, pd.Series) and value.dtype == np.bool_:
            return value
        raise ExpressionError("and/or/not need true/false conditions on both sides")

    @staticmethod
    def _numeric(value: Any, node: ast.AST) -> None:
        del node
        if isinstance(value, str) or (
            isinstance(value, pd.Series) and not pd.api.types.is_numeric_dtype(value.dtype)
        ):
            raise ExpressionError("arithmetic needs numbers (a column or value here holds text)")
