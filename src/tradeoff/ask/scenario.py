"""Scenario files: what is being elicited, in whose words, on which population.

A scenario is a TOML file (see ``scenarios/`` and docs/architecture.md) that declares the
classes, the cost and reward attributes with their natural units and ranges, the population
the query classifiers are built from, and the elicitation settings. :func:`load_scenario` reads and
validates one; every mistake is reported as an :class:`~tradeoff.errors.InputError` naming
the file, the key path and the fix.

Weight order (docs/architecture.md): the scenario's classes in declared order, then its
attributes in declared order.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from tradeoff.ask.formats import check_format, check_format_one, reads_one, value_spec
from tradeoff.ask.options import check_options
from tradeoff.ask.strategies import DECIDING_STRATEGIES as DECIDING_STRATEGIES
from tradeoff.ask.strategies import STRATEGY_NAMES as STRATEGY_NAMES
from tradeoff.ask.strategies import StrategyName as StrategyName
from tradeoff.ask.toml_lines import toml_error, with_lines
from tradeoff.data import missing_scenario_fix, resolve_scenario
from tradeoff.errors import InputError, Problem, read_user_file
from tradeoff.limits import check_toml
from tradeoff.stable import settled

#: Default population size; why this value: see :mod:`tradeoff.ask.population`.
DEFAULT_SAMPLES = 1_000_000
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_\-]*$"


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, v: Any) -> Any:
        if isinstance(v, str) and _CONTROL.search(v):
            raise ValueError(
                "contains control characters (such as ESC), which would reach the terminal; "
                "remove them"
            )
        return v


class PopulationSpec(_Model):
    """Where the class probabilities η(x) of the query classifiers come from.

    ``kind = "softmax-linear"`` is the synthetic population of paper 004 §5: x ~ N(0, I_f),
    W ~ U[−w, w]^{k×f}, η = softmax(Wx) (+ a bias that honours ``prevalence`` if given).
    ``kind = "probabilities"`` reads predicted class probabilities from a CSV file (one
    column per class, named like the classes), for example a real model's outputs; it
    takes no seed or other synthetic setting (the file is the population).
    """

    kind: Literal["softmax-linear", "probabilities"] = "softmax-linear"
    seed: int | None = Field(default=None, ge=0, validate_default=True)
    samples: int = Field(default=DEFAULT_SAMPLES, ge=1_000, le=50_000_000)
    features: int = Field(default=10, ge=1, le=1_000)
    weight_range: float = Field(default=1.5, gt=0, le=100, allow_inf_nan=False)
    prevalence: tuple[float, ...] | None = None
    path: str | None = None

    @field_validator("prevalence")
    @classmethod
    def _prevalence_sums_to_one(cls, v: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if v is None:
            return v
        if any(not (0 < p < 1) for p in v):
            raise ValueError("every prevalence must lie strictly between 0 and 1")
        if abs(sum(v) - 1) > 1e-6:
            raise ValueError(f"prevalences must sum to 1, these sum to {sum(v):.6g}")
        return v

    @model_validator(mode="after")
    def _path_iff_probabilities(self) -> PopulationSpec:
        if self.kind == "probabilities":
            if not self.path:
                raise ValueError("kind = 'probabilities' needs a 'path' to a CSV of probabilities")
            synthetic = sorted(
                {"seed", "samples", "features", "weight_range", "prevalence"}
                & self.model_fields_set
            )
            if synthetic:
                raise ValueError(
                    f"{', '.join(synthetic)} only apply to kind = 'softmax-linear'; a "
                    "population read from probabilities takes none of them (remove them)"
                )
            return self
        if self.path:
            raise ValueError("'path' is only used with kind = 'probabilities'")
        return self

    @field_validator("seed", mode="after")
    @classmethod
    def _seed_for_synthetic(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is None and info.data.get("kind", "softmax-linear") == "softmax-linear":
            raise PydanticCustomError(
                "missing", "required key 'seed' is missing (kind = 'softmax-linear')"
            )
        return v


class ClassSpec(_Model):
    """One class: its name in weight vectors and how a person reads its recall.

    The question screen says ``"{verb} {n} of 1,000 {label}"``, e.g. "finds 912 of 1,000
    glaucoma cases"; trade-offs say "{outcome} {label}" ("detected glaucoma cases").
    ``recall_range`` bounds the recall shown on questions that trade this
    class against a cost or reward (the ``bisection`` and ``probabilistic`` strategies), so a
    clinician is never asked about a screening tool that finds no cases at all.
    """

    name: Annotated[str, Field(pattern=NAME_PATTERN, max_length=40)]
    label: str = Field(min_length=1)
    verb: str = Field(default="finds", min_length=1)
    outcome: str = Field(default="correctly classified", min_length=1)
    recall_range: tuple[float, float] = (0.0, 1.0)

    @field_validator("recall_range")
    @classmethod
    def _recall_range_ordered(cls, v: tuple[float, float]) -> tuple[float, float]:
        low, high = v
        if not 0 <= low < high <= 1:
            raise ValueError(
                f"recall_range must satisfy 0 <= low < high <= 1, got {list(v)}: give two "
                "recalls in [0, 1], the lower first, e.g. [0.8, 1.0]"
            )
        return v


MAX_MAGNITUDE = 1e12
"""Largest |value| an attribute's range may reach (beyond, weights lose precision)."""
MIN_SPAN = 1e-9
"""Narrowest attribute range (in its unit) that questions can resolve."""


class AttributeSpec(_Model):
    """A cost (lower is better) or reward (higher is better) in natural units.

    ``range = [low, high]`` bounds the values query classifiers may take. ``format`` is a
    Python format string with ``{value}``, e.g. ``"${value:.2f} per scan"``.
    """

    name: Annotated[str, Field(pattern=NAME_PATTERN, max_length=40)]
    kind: Literal["cost", "reward"]
    unit: str = ""
    range: tuple[float, float]
    label: str = Field(min_length=1)
    format: str | None = None
    format_one: str | None = None
    unit_one: str | None = None

    @field_validator("range")
    @classmethod
    def _range_ordered(cls, v: tuple[float, float]) -> tuple[float, float]:
        low, high = v
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ValueError("range bounds must be finite numbers")
        if low >= high:
            raise ValueError(f"range low ({low:g}) must be smaller than high ({high:g})")
        if max(abs(low), abs(high)) > MAX_MAGNITUDE:
            raise ValueError(
                f"range bounds must lie within ±{MAX_MAGNITUDE:g}; express the attribute in a "
                "larger unit"
            )
        span = high - low
        if span < MIN_SPAN or span < 1e-6 * max(abs(low), abs(high)):
            raise ValueError(
                f"range [{low:g}, {high:g}] is too narrow to ask about (width {span:g}); give "
                "a wider range or a smaller unit"
            )
        return v

    @field_validator("format")
    @classmethod
    def _format_has_value(cls, v: str | None) -> str | None:
        return v if v is None else check_format(v)

    @model_validator(mode="after")
    def _singular_matches(self) -> AttributeSpec:
        check_format_one(self.format_one, self.format)
        if self.unit_one is not None and not self.unit:
            raise ValueError("unit_one needs unit: give both, the plural in unit")
        return self

    @model_validator(mode="after")
    def _range_visible(self) -> AttributeSpec:
        low, high = self.range
        shown = [self.render(x) for x in (low, low + (high - low) / 2, high)]
        if len(set(shown)) < 3:
            raise ValueError(
                f"the range [{low:g}, {high:g}] shows as {shown[0]!r} … {shown[2]!r}: a person "
                "could not see the values differ; widen the range or show more digits in format"
            )
        return self

    def render(self, value: float) -> str:
        """Show ``value`` in the attribute's natural unit.

        >>> AttributeSpec(name="cost", kind="cost", range=(0, 1), label="per scan",
        ...               format="${value:.2f} per scan").render(0.214)
        '$0.21 per scan'
        """
        value = settled(value)  # the same text on every machine (tradeoff.stable)
        if self.format:
            return self.format_for(value).format(value=value)
        unit = f" {self.unit_for(format(value, '.3g'))}" if self.unit else ""
        return f"{value:.3g}{unit} {self.label}"

    def format_for(self, value: float) -> str:
        """The format that shows ``value``: ``format_one`` when the number reads as one
        (:func:`~tradeoff.ask.formats.reads_one`), else ``format`` ("" without one).

        >>> spec = AttributeSpec(name="changes", kind="cost", unit="changes",
        ...     unit_one="change", range=(0, 4), label="changes",
        ...     format="{value:.0f} changes of train", format_one="{value:.0f} change of train")
        >>> spec.render(1.0), spec.render(1.2), spec.render(2.0), spec.render(0.0)
        ('1 change of train', '1 change of train', '2 changes of train', '0 changes of train')
        """
        fmt = self.format or ""
        if self.format_one and reads_one(format(settled(value), value_spec(fmt) or "")):
            return self.format_one
        return fmt

    def unit_for(self, number: str) -> str:
        """The unit after ``number`` (a number as shown): ``unit_one`` when it reads as
        one, else ``unit``.

        >>> AttributeSpec(name="steps", kind="cost", unit="steps", unit_one="step",
        ...     range=(0, 2), label="steps").unit_for("1")
        'step'
        """
        return self.unit_one if self.unit_one and reads_one(number) else self.unit


class ElicitationSpec(_Model):
    """Defaults for the elicitation engine; the command line may override them.

    ``error_rate`` is the assumed chance that a person's answer is wrong; ``target_width``
    stops the ``probabilistic`` strategy once every weight's 90% credible interval is
    narrower; ``repeat_every`` makes it repeat an earlier question (sides swapped) every so
    many questions to measure consistency (0: never). ``precision`` says in which scale the
    ``bisection`` and ``probabilistic`` strategies spend questions where the weights are
    least certain: ``swing`` (weight × range, what decides between real models; the
    default) or ``natural`` (weight per natural unit, the scale of paper 004's Table 1).
    ``rounding = "shown"`` (the default) makes the ``bisection`` and ``probabilistic``
    strategies ask about the options exactly as the screen shows them (recalls per 1,000,
    attributes as formatted), skip questions a person could not answer from the screen,
    and never show one pair of options more than twice; ``exact`` asks about unrounded
    frontier classifiers, as paper 004 does (its scenarios, answered by simulated people).
    ``stop`` says what the ``probabilistic`` strategy aims at when the scenario has a
    ``[pool]``: ``decision`` (the default then) chooses each question to settle which
    candidate is best for the person and stops once one model is the best with probability
    ``decision_confidence`` or the expected regret of the pick (relative to the metric's
    spread over the pool) is below ``regret_tolerance``; ``weights`` aims at the weights
    alone. The budget stays a hard cap.
    """

    strategy: StrategyName = "probabilistic"
    budget: int | None = Field(default=None, ge=1, le=10_000)
    epsilon: float = Field(default=0.001, gt=0, lt=0.5)
    error_rate: float = Field(default=0.05, ge=0, lt=0.5)
    target_width: float = Field(default=0.0, ge=0, lt=1)
    repeat_every: int = Field(default=6, ge=0, le=1000)
    precision: Literal["swing", "natural"] = "swing"
    rounding: Literal["shown", "exact"] = "shown"
    stop: Literal["decision", "weights"] | None = None
    decision_confidence: float = Field(default=0.95, gt=0.5, le=1.0)
    regret_tolerance: float = Field(default=0.0, ge=0.0, lt=1.0)

    def decided(self, p_best: float, regret: float) -> bool:
        """Whether a pick with posterior probability ``p_best`` of being best and expected
        regret ``regret`` (a share of the metric's spread) stops the questions: P(best) at
        least ``decision_confidence`` or regret at most ``regret_tolerance``, both compared
        :func:`~tradeoff.stable.settled`, so a P(best) of exactly 19 in 20 meets 0.95 on
        every machine.

        >>> ElicitationSpec(decision_confidence=0.95).decided(0.9499999999999999, 1.0)
        True
        """
        return (
            settled(p_best) >= self.decision_confidence or settled(regret) <= self.regret_tolerance
        )

    def override(self, **changes: Any) -> ElicitationSpec:
        """A validated copy with ``changes`` applied; changes that are ``None`` are ignored
        (so optional command-line values pass straight through).

        >>> ElicitationSpec().override(strategy="paper", budget=None).strategy
        'paper'

        Raises
        ------
        pydantic.ValidationError
            If a change is not a valid value for its field.
        """
        given = {k: v for k, v in changes.items() if v is not None}
        return self if not given else type(self).model_validate(self.model_dump() | given)


class SpecOverrides(_Model):
    """Elicitation settings given for a run (on the command line), to apply to whichever
    scenario is chosen: ``spec = overrides.apply(scenario.elicitation)``."""

    strategy: StrategyName | None = None
    budget: int | None = Field(default=None, ge=1, le=10_000)

    def apply(self, spec: ElicitationSpec) -> ElicitationSpec:
        return spec.override(**self.model_dump())


class PoolSpec(_Model):
    """An optional candidate pool and which of its columns measures each class/attribute."""

    path: str
    name_column: str = "model"
    columns: dict[str, str] = Field(default_factory=dict)


#: At most this many classes and attributes: every question pairs two of them, and the
#: population's tables grow with the classes (a scenario of 10⁵ classes asked for 745 GiB).
MAX_CLASSES = 20
MAX_ATTRIBUTES = 20
#: A softmax-linear population holds samples × (features + classes) numbers: at most this
#: many (about 480 MB of float64; the default 1,000,000 × (10 + k) is a fifth of it).
MAX_POPULATION_WORK = 60_000_000


class Scenario(_Model):
    """A validated scenario file. Use :func:`load_scenario` to read one."""

    id: Annotated[str, Field(pattern=NAME_PATTERN, max_length=80)]
    title: str = Field(min_length=1)
    description: str = ""
    population: PopulationSpec | None = None
    classes: Annotated[tuple[ClassSpec, ...], Field(max_length=MAX_CLASSES)] = ()
    attributes: Annotated[tuple[AttributeSpec, ...], Field(max_length=MAX_ATTRIBUTES)] = ()
    elicitation: ElicitationSpec = ElicitationSpec()
    pool: PoolSpec | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        # Classifiers, or options described by their aspects alone (tradeoff.ask.options).
        check_options(len(self.classes), len(self.attributes), self.population)
        names = [c.name for c in self.classes] + [a.name for a in self.attributes]
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ValueError(
                    f"the name {name!r} is used twice among classes and attributes; "
                    "every class and attribute needs its own name"
                )
            seen.add(name)
        pop = self.population
        if pop is None:
            return self._pool_columns_known(seen)
        prev = pop.prevalence
        if prev is not None and len(prev) != len(self.classes):
            raise ValueError(
                f"population.prevalence has {len(prev)} values but there are "
                f"{len(self.classes)} classes"
            )
        if pop.kind != "probabilities":
            work = pop.samples * (pop.features + len(self.classes))
            if work > MAX_POPULATION_WORK:
                raise ValueError(
                    f"population.samples × (features + classes) is {work:,}, more than "
                    f"{MAX_POPULATION_WORK:,} numbers to build and keep in memory; use fewer "
                    "samples or features (1,000,000 samples of 10 features are plenty)"
                )
        return self._pool_columns_known(seen)

    def _pool_columns_known(self, seen: set[str]) -> Scenario:
        if self.pool is not None:
            unknown = sorted(set(self.pool.columns) - seen)
            if unknown:
                raise ValueError(f"pool.columns names unknown classes/attributes: {unknown}")
        return self

    @property
    def weight_names(self) -> tuple[str, ...]:
        """Names of the metric's weights in order: classes, then attributes."""
        return tuple(c.name for c in self.classes) + tuple(a.name for a in self.attributes)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def aspects_only(self) -> bool:
        """Whether options are described by their attributes alone (no classes)."""
        return not self.classes


class LoadedScenario(BaseModel):
    """A scenario together with where it came from and the exact bytes' hash."""

    model_config = ConfigDict(frozen=True)

    scenario: Scenario
    path: str
    sha256: str
    text: str


_FIXES = {
    "extra_forbidden": "remove it, or check its spelling",
    "missing": "add it",
    "literal_error": "use one of the allowed values",
    "string_pattern_mismatch": "use letters, digits, '-' or '_', starting with a letter",
    "int_type": "write a whole number",
    "int_parsing": "write a whole number",
    "float_type": "write a number",
    "float_parsing": "write a number",
    "string_type": "write text in quotes",
    "bool_type": "write true or false",
    "tuple_type": "write a list in square brackets",
    "list_type": "write a list in square brackets",
    "too_short": "add the missing items",
    "too_long": "remove the extra items",
    "greater_than_equal": "use a larger value",
    "greater_than": "use a larger value",
    "less_than_equal": "use a smaller value",
    "less_than": "use a smaller value",
}

_KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "": tuple(Scenario.model_fields),
    "population": tuple(PopulationSpec.model_fields),
    "classes": tuple(ClassSpec.model_fields),
    "attributes": tuple(AttributeSpec.model_fields),
    "elicitation": tuple(ElicitationSpec.model_fields),
    "pool": tuple(PoolSpec.model_fields),
}


def _key_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _problem_from(err: ErrorDetails) -> Problem:
    loc = tuple(err["loc"])
    kind = err["type"]
    msg = err["msg"]
    fix = _FIXES.get(kind, "")
    if kind == "value_error":  # the validator's message says what must hold
        msg, fix = msg.removeprefix("Value error, "), "change the value so that it holds"
    ctx = err.get("ctx") or {}
    if kind == "options":
        return Problem(str(ctx["where"]), msg, str(ctx["fix"]))
    if kind == "extra_forbidden" and loc:
        section = next((str(p) for p in loc[:-1] if isinstance(p, str)), "")
        known = _KNOWN_KEYS.get(section, ())
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        msg = f"unknown key {loc[-1]!r}"
        fix = f"did you mean {close[0]!r}?" if close else f"allowed keys here: {', '.join(known)}"
    if kind == "missing":
        msg = f"required key {loc[-1]!r} is missing"
        if loc[-1] == "seed":
            fix = "add e.g. 'seed = 1' under [population]; the population must be reproducible"
    if kind == "literal_error":
        fix = msg.replace("Input should be", "use")
    inp = err.get("input")
    if kind not in ("missing", "extra_forbidden") and not isinstance(inp, dict | list):
        msg = f"{msg} (got {inp!r})"
    return Problem(_key_path(loc), msg if msg.endswith((".", "?")) else f"{msg}.", fix)


def parse_scenario(data: Mapping[str, Any], source: str = "<scenario>") -> Scenario:
    """Validate a scenario given as a mapping (already parsed TOML).

    Raises
    ------
    InputError
        With one :class:`~tradeoff.errors.Problem` per mistake, each naming its key path.
    """
    try:
        return Scenario.model_validate(dict(data))
    except ValidationError as exc:
        raise InputError.many(source, [_problem_from(e) for e in exc.errors()]) from None


def load_scenario(path: str | Path) -> LoadedScenario:
    """Read, parse and validate a scenario TOML file.

    Parameters
    ----------
    path
        The ``.toml`` file, or a shipped scenario's id (:func:`tradeoff.data.resolve_scenario`).

    Returns
    -------
    LoadedScenario
        The validated scenario, its path, the sha256 of its bytes and its text.

    Raises
    ------
    InputError
        If the file is missing, is not valid TOML, or does not describe a valid scenario.
    """
    p = resolve_scenario(path)
    raw = read_user_file(p, missing_scenario_fix(p))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.single(
            p, f"byte {exc.start}", "is not UTF-8 text.", "save the file as UTF-8."
        ) from None
    check_toml(text, p)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_error(p, exc) from None
    except RecursionError:
        raise InputError.single(
            p, "", "is nested too deeply to be a scenario.", "give a scenario TOML file."
        ) from None
    try:
        scenario = parse_scenario(data, str(p))
    except InputError as exc:  # each key path led by its line in the file
        raise with_lines(exc, text) from None
    if scenario.population is not None and scenario.population.path is not None:
        prob_path = (p.parent / scenario.population.path).resolve()
        if not prob_path.is_file():
            raise InputError.single(
                p,
                "population.path",
                f"file {scenario.population.path!r} not found (looked in {prob_path}).",
                "give a path relative to the scenario file.",
            )
        spec = scenario.population.model_copy(update={"path": str(prob_path)})
        scenario = scenario.model_copy(update={"population": spec})
    return LoadedScenario(
        scenario=scenario, path=str(p), sha256=hashlib.sha256(raw).hexdigest(), text=text
    )
