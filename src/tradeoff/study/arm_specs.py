"""A study's arms as a coordinator gives them and as ``study.json`` records them
(:mod:`tradeoff.study.arms` assigns participants to them): ``--arm NAME:key=value,...``
(:func:`parse_arm_option`) or an arms TOML file (:func:`read_arms_file`), each checked
with an error naming the option or file, the arm and the field (:func:`check_arms`; an
arm's ``language`` the study web page has words for: :func:`check_arm_languages`), and
each arm's own scenario copied into the study with the files it names
(:func:`copy_arm_scenarios`)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tradeoff.ask.strategies import STRATEGY_NAMES
from tradeoff.errors import InputError, Problem
from tradeoff.study.inputs import LANGUAGE_TAG

#: An arm's name: a short word (it is a folder name and a column's value).
ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
#: The keys an arm may give.
ARM_KEYS = ("name", "scenario", "strategy", "language")
#: At most this many arms in one study.
MAX_ARMS = 26
#: An arms file is read only up to this size.
ARMS_FILE_LIMIT = 100_000


@dataclass(frozen=True)
class ArmSpec:
    """An arm as a coordinator gives it: its name, its scenario file (``None``: the
    study's), its strategy (``None``: the scenario's own) and the language of its pages
    (``None``: as in a study without arms)."""

    name: str
    scenario: Path | None = None
    strategy: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class Arm:
    """An arm of a study: its name, its scenario's path in the study, its strategy
    (``None``: the scenario's own) and the language its participants see the study web
    page in once assigned (``None``: the page's language as in a study without arms)."""

    name: str
    scenario: str
    strategy: str | None = None
    language: str | None = None

    def to_json(self) -> dict[str, Any]:
        """As ``study.json`` holds it (``language`` only when the arm has one)."""
        out: dict[str, Any] = {
            "name": self.name,
            "scenario": self.scenario,
            "strategy": self.strategy,
        }
        if self.language is not None:
            out["language"] = self.language
        return out

    @classmethod
    def from_json(cls, data: Any) -> Arm:
        """An arm as ``study.json`` holds it (raises ``ValueError`` when it is not one)."""
        if not isinstance(data, dict):
            raise ValueError("an arm is not an object")
        name, scenario, strategy = data.get("name"), data.get("scenario"), data.get("strategy")
        if not isinstance(name, str) or not ARM_NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not an arm's name")
        if not isinstance(scenario, str) or Path(scenario).is_absolute() or ".." in scenario:
            raise ValueError(f"arm {name}: {scenario!r} is not a scenario in the study")
        if strategy is not None and strategy not in STRATEGY_NAMES:
            raise ValueError(f"arm {name}: {strategy!r} is not a strategy")
        language = data.get("language")
        if language is not None and not (
            isinstance(language, str) and LANGUAGE_TAG.fullmatch(language)
        ):
            raise ValueError(f"arm {name}: {language!r} is not a language tag")
        return cls(name, scenario, strategy, language)


def _check_arm(source: str, where: str, values: Mapping[str, Any], base: Path) -> ArmSpec:
    """One arm's values (``name``, ``scenario``, ``strategy``, ``language``), checked."""
    problems = []
    for key in values:
        if key not in ARM_KEYS:
            problems.append(
                Problem(
                    f"{where}.{key}",
                    f"{key!r} is not a key of an arm.",
                    f"give only {', '.join(ARM_KEYS)}.",
                )
            )
    name = values.get("name")
    if not isinstance(name, str) or not ARM_NAME.fullmatch(name):
        problems.append(
            Problem(
                f"{where}.name",
                f"{name!r} is not a usable arm name." if name is not None else "is missing.",
                "give 1–32 letters, digits, - or _, starting with a letter or digit.",
            )
        )
    strategy = values.get("strategy")
    if strategy is not None and strategy not in STRATEGY_NAMES:
        problems.append(
            Problem(
                f"{where}.strategy",
                f"{strategy!r} is not a strategy.",
                f"give one of {', '.join(STRATEGY_NAMES)}, or leave it out for the scenario's.",
            )
        )
    language = values.get("language")
    if language is not None and not (
        isinstance(language, str) and LANGUAGE_TAG.fullmatch(language)
    ):
        problems.append(
            Problem(
                f"{where}.language",
                f"{language!r} is not a language tag.",
                "give a tag such as de or en (lower-case language, then optional -REGION), "
                "or leave it out for the page's language as in a study without arms.",
            )
        )
    scenario = values.get("scenario")
    path = None
    if scenario is not None:
        if not isinstance(scenario, str) or not scenario:
            problems.append(
                Problem(f"{where}.scenario", f"{scenario!r} is not a file name.", "give a path.")
            )
        else:
            path = Path(scenario) if Path(scenario).is_absolute() else base / scenario
            if not path.is_file():
                problems.append(
                    Problem(
                        f"{where}.scenario",
                        f"{scenario!r} is not a file.",
                        "give the path of a scenario file (relative to the arms file).",
                    )
                )
    if problems:
        raise InputError.many(source, problems)
    assert isinstance(name, str)
    return ArmSpec(name, path, strategy, language)


def check_arms(source: str, arms: Sequence[ArmSpec]) -> list[ArmSpec]:
    """At least two arms, each name once, at most :data:`MAX_ARMS`, and no two alike."""
    if len(arms) < 2:
        raise InputError.single(
            source,
            "",
            f"gives {len(arms)} arm; a study compares at least two.",
            "give two or more.",
        )
    if len(arms) > MAX_ARMS:
        raise InputError.single(source, "", f"gives {len(arms)} arms.", f"give at most {MAX_ARMS}.")
    seen: dict[str, int] = {}
    kinds: dict[tuple[str | None, str | None, str | None], str] = {}
    for number, arm in enumerate(arms, start=1):
        if arm.name in seen:
            raise InputError.single(
                source,
                f"arms[{number}].name",
                f"{arm.name!r} is arm {seen[arm.name]}'s name too.",
                "give each arm its own name.",
            )
        seen[arm.name] = number
        scenario = None if arm.scenario is None else str(arm.scenario.resolve())
        kind = (scenario, arm.strategy, arm.language)
        if kind in kinds:
            raise InputError.single(
                source,
                f"arms[{number}]",
                f"is the same condition as arm {kinds[kind]!r}.",
                "give the arms different scenarios, strategies or languages.",
            )
        kinds[kind] = arm.name
    return list(arms)


def parse_arm_option(text: str) -> ArmSpec:
    """One ``--arm`` value: ``NAME`` or ``NAME:key=value,...`` (keys ``scenario``,
    ``strategy`` and ``language``; a relative scenario path is from the working folder).

    >>> parse_arm_option("fast:strategy=bisection")
    ArmSpec(name='fast', scenario=None, strategy='bisection', language=None)
    >>> parse_arm_option("german:language=de").language
    'de'
    """
    name, _, rest = text.partition(":")
    values: dict[str, Any] = {"name": name.strip()}
    for number, part in enumerate(filter(None, rest.split(",")), start=1):
        key, eq, value = part.partition("=")
        if not eq or not value.strip():
            raise InputError.single(
                "--arm",
                f"{text!r}, item {number}",
                f"{part!r} is not key=value.",
                "write --arm NAME:strategy=joint,scenario=other.toml,language=de.",
            )
        values[key.strip()] = value.strip()
    return _check_arm("--arm", repr(text), values, Path.cwd())


def read_arms_file(path: Path) -> list[ArmSpec]:
    """An arms file: TOML with one ``[[arms]]`` table per arm (``name``, and ``scenario``
    relative to the file, ``strategy``, ``language``); every arm checked
    (:func:`check_arms`)."""
    try:
        raw = path.read_bytes()[: ARMS_FILE_LIMIT + 1]
    except OSError as exc:
        raise InputError.single(
            path, "", f"cannot be read ({exc.strerror}).", "give the file."
        ) from None
    if len(raw) > ARMS_FILE_LIMIT:
        raise InputError.single(path, "", "is larger than 100 KB.", "give one table per arm.")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError.single(
            path, "", f"is not TOML ({exc}).", "fix the line it names."
        ) from None
    tables = data.get("arms")
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError.single(
            path, "arms", "is missing or not a list of tables.", "write one [[arms]] per arm."
        )
    others = [k for k in data if k != "arms"]
    if others:
        raise InputError.single(
            path, others[0], "is not a key of an arms file.", "give only [[arms]] tables."
        )
    arms = [
        _check_arm(str(path), f"arms[{n}]", table, path.parent)
        for n, table in enumerate(tables, start=1)
    ]
    return check_arms(str(path), arms)


def check_arm_languages(
    source: str | Path, arms: Sequence[ArmSpec | Arm], known: Collection[str]
) -> None:
    """Refuse an arm's language that the study web page has no words for (``known``: the
    tags it has catalogues for), naming the option or file, the arm and the field: its
    participants would see English.

    >>> check_arm_languages("--arm", [ArmSpec("a"), ArmSpec("b", language="de")], {"en", "de"})
    >>> check_arm_languages("--arm", [ArmSpec("a", language="xx")], {"en", "de"})
    Traceback (most recent call last):
    tradeoff.errors.InputError: ...
    """
    for number, arm in enumerate(arms, start=1):
        if arm.language is not None and arm.language not in known:
            raise InputError.single(
                source,
                f"arms[{number}].language",
                f"is {arm.language[:40]!r} (arm {arm.name!r}), a language the study's page "
                "has no words for.",
                f"give one of {', '.join(sorted(known))}, or leave it out; a new language is "
                "a catalogue in tradeoff/web/locale (the README's Languages).",
            )


def check_arm_scenarios(arms: Sequence[ArmSpec], main: Path) -> None:
    """Every arm's own scenario loads and its files may be copied (before anything of the
    study is made)."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.inputs import check_copyable, referenced_files

    for arm in arms:
        if arm.scenario is None or arm.scenario.resolve() == main.resolve():
            continue
        src = Path(load_scenario(arm.scenario).path)
        for rel in referenced_files(src):
            check_copyable(src, rel)


def copy_arm_scenarios(
    arms: Sequence[ArmSpec], main: Path, dest: Path, files: dict[str, str]
) -> list[Arm]:
    """Copy each arm's own scenario (one that is not ``main``, the study's) into
    ``dest/arms/<name>/`` with the files it names, their SHA-256 added to ``files``; the
    arms as the study records them."""
    import shutil

    from tradeoff.study.inputs import file_sha256, referenced_files

    out = []
    for arm in arms:
        if arm.scenario is None or arm.scenario.resolve() == main.resolve():
            out.append(Arm(arm.name, "scenario.toml", arm.strategy, arm.language))
            continue
        folder = dest / "arms" / arm.name
        folder.mkdir(parents=True)
        for rel in referenced_files(arm.scenario):
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(arm.scenario.parent / rel, target, follow_symlinks=False)
            files[(Path("arms") / arm.name / rel).as_posix()] = file_sha256(target)
        shutil.copyfile(arm.scenario, folder / "scenario.toml", follow_symlinks=False)
        rel_scenario = f"arms/{arm.name}/scenario.toml"
        files[rel_scenario] = file_sha256(folder / "scenario.toml")
        out.append(Arm(arm.name, rel_scenario, arm.strategy, arm.language))
    return out


def read_arms(data: dict[str, object]) -> tuple[tuple[Arm, ...], int]:
    """The arms of a ``study.json`` and their seed (none: a study without arms).

    >>> read_arms({})
    ((), 0)
    """
    listed = data.get("arms")
    if listed is None:
        return (), 0
    if not isinstance(listed, list):
        raise TypeError("arms is not a list")
    seed = data.get("arm_seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"arm_seed {seed!r} is not a seed")
    return tuple(Arm.from_json(a) for a in listed), seed
