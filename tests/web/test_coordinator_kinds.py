"""The coordinator's page renders for every kind of study: by access codes alone, with a
pilot run (whose link entry makes ``study status`` report entries by link without a
panel), by a panel's link, and with arms; the numbers it shows are ``study status``'s."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.status import study_status

from ..conftest import small_scenario_file
from ..webclient import Participant
from .test_web_panel import facts_of, panel_study

pytestmark = pytest.mark.e2e


def code_study(tmp_path: Path, **more: object) -> Study:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    study, _ = create_study(scenario, ["p01", "p02"], tmp_path / "study", **more)  # type: ignore[arg-type]
    return study


@pytest.mark.parametrize(
    ("kind", "pilot"),
    [("codes", False), ("codes", True), ("panel", True), ("arms", True)],
)
async def test_the_coordinators_page_renders_for_every_kind_of_study(
    tmp_path: Path, serve: Callable[[Study], object], kind: str, pilot: bool
) -> None:
    if kind == "panel":
        study = panel_study(tmp_path, ids=("AAA111",))
    elif kind == "arms":
        study = code_study(tmp_path, arms=[ArmSpec("a", None, "joint"), ArmSpec("b")])
    else:
        study = code_study(tmp_path)
    key = new_key(study.path, "coordinator")
    base = await serve(study)  # type: ignore[misc]
    coordinator = Participant(base)
    runner = Participant(base)
    try:
        if pilot:
            started = await runner.get(f"pilot?key={new_key(study.path, 'pilot')}")
            assert started.status == 200
        form = await coordinator.get("coordinator")
        page = await coordinator.submit(form, "coordinator", key=key)
    finally:
        await coordinator.close()
        await runner.close()
    assert page.status == 200, page.text[:300]
    shown = facts_of(page)
    status = study_status(load_study(study.path)).to_dict()
    assert shown["started"] == str(status["started"])
    if pilot:
        assert shown["pilots.participants"].startswith("1")
    # entries by link are shown only for a study that takes them from a panel
    assert ("panel.entered" in shown) == (kind == "panel")


async def test_a_withdrawals_time_reads_to_the_minute_as_its_last_activity(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    """ "withdrawn 2026-11-29T16:43:21+00:00" stood beside a last activity shown to the
    minute; the state's time is shown the same way, and an empty "Where people stop" says
    that those who withdrew are counted above, not that nobody stopped."""
    import re

    from tradeoff.study.withdrawals import withdraw

    study = code_study(tmp_path)
    withdraw(study, "p01")
    key = new_key(study.path, "coordinator")
    base = await serve(study)  # type: ignore[misc]
    coordinator = Participant(base)
    try:
        page = await coordinator.submit(
            await coordinator.get("coordinator"), "coordinator", key=key
        )
    finally:
        await coordinator.close()
    assert re.search(r"withdrawn \d{4}-\d\d-\d\d \d\d:\d\d(?!:)", page.text), page.text
    assert not re.search(r"withdrawn \d{4}-\d\d-\d\dT", page.text)
    assert "those who withdrew are counted above" in page.text
