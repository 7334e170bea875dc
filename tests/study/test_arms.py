"""A study's arms: given by option or file (errors located), copied and recorded in
``study.json``, read back; participants assigned to the arm with the fewest who count,
ties drawn reproducibly from the record, once and for good."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.errors import InputError
from tradeoff.study.arm_specs import ArmSpec, parse_arm_option, read_arms_file
from tradeoff.study.arms import arm_counts, arm_session, assign_arm, draw
from tradeoff.study.entries import append_entry, read_entries
from tradeoff.study.folder import create_study, load_study

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core

JOINT_VS_BISECTION = (ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection"))


def test_arm_option_and_file_are_read_and_checked(tmp_path: Path) -> None:
    assert parse_arm_option("b:strategy=bisection") == ArmSpec("b", None, "bisection")
    with pytest.raises(InputError) as bad:
        parse_arm_option("b:strategy=fastest")
    assert "strategy" in bad.value.message() and "bisection" in bad.value.message()
    with pytest.raises(InputError, match="key=value"):
        parse_arm_option("b:strategy")
    other = small_scenario_file(tmp_path)
    arms = tmp_path / "arms.toml"
    arms.write_text(
        '[[arms]]\nname = "joint"\nstrategy = "joint"\n\n'
        f'[[arms]]\nname = "words"\nscenario = "{other.name}"\n'
    )
    assert read_arms_file(arms) == [ArmSpec("joint", None, "joint"), ArmSpec("words", other)]
    arms.write_text('[[arms]]\nname = "a"\n\n[[arms]]\nname = "b"\nstrategy = "nope"\ncolor = 1\n')
    with pytest.raises(InputError) as bad:
        read_arms_file(arms)
    text = bad.value.message()
    assert str(arms) in text and "arms[2].strategy" in text and "arms[2].color" in text
    arms.write_text('[[arms]]\nname = "a"\nstrategy = "joint"\n\n[[arms]]\nname = "a"\n')
    with pytest.raises(InputError, match=r"arms\[2\]\.name"):
        read_arms_file(arms)
    arms.write_text('[[arms]]\nname = "a"\n\n[[arms]]\nname = "b"\n')
    with pytest.raises(InputError, match="same condition"):
        read_arms_file(arms)
    arms.write_text('[[arms]]\nname = "a"\n')
    with pytest.raises(InputError, match="at least two"):
        read_arms_file(arms)


def test_arms_are_recorded_copied_and_read_back(tmp_path: Path) -> None:
    main = small_scenario_file(tmp_path)
    (tmp_path / "w").mkdir()
    words = small_scenario_file(tmp_path / "w", **{"from retinal photographs": "in other words"})
    study, _ = create_study(
        main,
        ["p01"],
        tmp_path / "s",
        arms=[ArmSpec("joint", None, "joint"), ArmSpec("words", words, None)],
    )
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert [a["name"] for a in data["arms"]] == ["joint", "words"]
    assert "arms/words/scenario.toml" in data["files"]
    loaded = load_study(tmp_path / "s")
    assert loaded.arms == study.arms and loaded.arm_seed == study.arm_seed
    assert len(loaded.scenario_hashes) == 2
    scenario, spec = arm_session(loaded, loaded.arms[0])
    assert spec is not None and spec.strategy == "joint"
    scenario, spec = arm_session(loaded, loaded.arms[1])
    assert spec is None and Path(scenario.path) == tmp_path / "s" / "arms/words/scenario.toml"
    (tmp_path / "s" / "arms/words/scenario.toml").write_text("changed")
    with pytest.raises(InputError, match="has changed"):
        load_study(tmp_path / "s")


def test_a_study_without_arms_is_as_before(tmp_path: Path) -> None:
    create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "s")
    data = json.loads((tmp_path / "s" / "study.json").read_text())
    assert "arms" not in data and "arm_seed" not in data
    assert load_study(tmp_path / "s").arms == ()


def test_a_bad_arms_record_is_named(tmp_path: Path) -> None:
    create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "s", arms=JOINT_VS_BISECTION)
    path = tmp_path / "s" / "study.json"
    data = json.loads(path.read_text())
    data["arms"][1]["strategy"] = "fastest"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as bad:
        load_study(tmp_path / "s")
    assert "arms" in bad.value.message() and "fastest" in bad.value.message()


def test_assignment_balances_counts_only_who_counts_and_never_changes(tmp_path: Path) -> None:
    study, _ = create_study(
        small_scenario_file(tmp_path),
        ["p01", "p02", "p03", "p04"],
        tmp_path / "s",
        arms=JOINT_VS_BISECTION,
    )
    arms, seed, folder = study.arms, study.arm_seed, study.path
    first = assign_arm(folder, arms, seed, "p01")
    second = assign_arm(folder, arms, seed, "p02")
    assert {first, second} == {"joint", "bisection"}
    assert assign_arm(folder, arms, seed, "p01") == first  # once and for good
    # p01 withdraws: their arm has one fewer who counts, so p03 goes there.
    third = assign_arm(folder, arms, seed, "p03", gone=lambda: ["p01"])
    assert third == first
    # a pilot is assigned but not counted
    append_entry(folder, {"event": "pilot", "participant": "pilot-1", "at": "x"})
    pilot = assign_arm(folder, arms, seed, "pilot-1")
    state = read_entries(folder)
    assert state.arms["pilot-1"] == pilot
    assert arm_counts(arms, state, ["p01"]) == {first: 1, second: 1}
    # one who declined counts not; one who declined, came back and started counts again
    at = "2026-01-01T10:00:00+00:00"
    append_entry(folder, {"event": "enrolled", "participant": "p04", "at": at})
    assign_arm(folder, arms, seed, "p04")
    append_entry(folder, {"event": "declined", "participant": "p04", "at": at})
    assert sum(arm_counts(arms, read_entries(folder), ["p01"]).values()) == 2
    append_entry(folder, {"event": "enrolled", "participant": "p04", "at": at})
    assert sum(arm_counts(arms, read_entries(folder), ["p01"]).values()) == 3
    assert state.bad_lines == []
    # each tie is drawn as the record says: from its number and the study's seed
    for line in map(json.loads, (folder / "entries.jsonl").read_text().splitlines()):
        if line["event"] == "assigned":
            assert line["arm"] == draw(seed, line["number"], line["tied"])


def test_ties_are_drawn_at_random_but_reproducibly() -> None:
    picks = [draw(11, n, ["a", "b"]) for n in range(200)]
    assert picks == [draw(11, n, ["a", "b"]) for n in range(200)]
    assert 60 < picks.count("a") < 140
    assert picks != [draw(12, n, ["a", "b"]) for n in range(200)]
