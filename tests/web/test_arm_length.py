"""How long a study with arms says it takes, before anyone is assigned to an arm: said of
the arm that asks the most, and "fewer once your answers settle …" only when every arm stops
early (a bisection arm asks every question of its budget)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.folder import Study, create_study

from ..conftest import SCENARIOS, small_scenario_file
from ..webclient import Participant

pytestmark = pytest.mark.e2e

LENGTH = re.compile(r"(At most|About) (\d+) questions[^.]*\.")


async def _length(tmp_path: Path, serve: Callable[[Study], object], arms: list[ArmSpec]) -> str:
    (tmp_path / "pools").mkdir()
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", tmp_path / "pools")
    scenario = small_scenario_file(
        tmp_path, "breast-cancer-triage", **{"budget = 30": "budget = 12"}
    )
    study, _ = create_study(scenario, ["p01"], tmp_path / "study", arms=arms)
    url = await serve(study)  # type: ignore[misc]
    visitor = Participant(url)
    try:
        page = await visitor.get("")
    finally:
        await visitor.close()
    found = LENGTH.search(page.text)
    assert found is not None, page.text
    return found.group(0)


async def test_a_bisection_arm_makes_the_length_about_not_at_most(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    said = await _length(
        tmp_path,
        serve,
        [ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection")],
    )
    assert said.startswith("About 12 questions"), said


async def test_arms_that_all_stop_early_say_at_most(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    said = await _length(
        tmp_path,
        serve,
        [ArmSpec("joint", None, "joint"), ArmSpec("probabilistic", None, "probabilistic")],
    )
    assert said.startswith("At most 12 questions (fewer once"), said
