"""Consent texts by version and language: added, never overwritten, read back checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.study.consent_added import add_consent_version, read_current
from tradeoff.study.consent_versions import text_for
from tradeoff.study.folder import STUDY_FILE, Study, create_study, load_study

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Study:
    tmp = tmp_path_factory.mktemp("consent-versions")
    consent = tmp / "consent.md"
    consent.write_text("# First\n\nThe first text.\n")
    study, _ = create_study(small_scenario_file(tmp), ["p01"], tmp / "study", consent=consent)
    return study


def _copy(study: Study, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "study"
    shutil.copytree(study.path, target, symlinks=True)
    return target


def test_versions_are_added_and_never_overwritten(made: Study, tmp_path: Path) -> None:
    folder = _copy(made, tmp_path)
    new, german = tmp_path / "v2.md", tmp_path / "v2.de.md"
    new.write_text("# Second\n")
    german.write_text("# Zweite\n")
    assert main(["study", "consent", str(folder), str(new), "--version", "2"]) == 0
    add_consent_version(folder, german, "2", "de")
    with pytest.raises(InputError, match="never replaced"):
        add_consent_version(folder, new, "2")
    study = load_study(folder)
    assert study.consent_version == "2" and study.consent_file == "consent-2.md"
    assert [(v.version, v.file, v.language) for v in study.consent_versions] == [
        ("1", "consent.md", None),
        ("2", "consent-2.md", None),
        ("2", "consent-3.md", "de"),
    ]
    assert (folder / "consent.md").read_text() == "# First\n\nThe first text.\n"
    assert text_for(study.consent_versions, "2", "de").file == "consent-3.md"  # type: ignore[union-attr]
    assert text_for(study.consent_versions, "2", "fr").file == "consent-2.md"  # type: ignore[union-attr]
    assert read_current(load_study(made.path))[0] == "1"
    (folder / "consent-3.md").write_text("# changed\n")  # an edited text is refused
    with pytest.raises(InputError, match="has changed since the study was made"):
        load_study(folder)


def test_a_study_json_naming_another_file_is_refused(made: Study, tmp_path: Path) -> None:
    folder = _copy(made, tmp_path)
    data = json.loads((folder / STUDY_FILE).read_text())
    data["consent"]["versions"][0]["file"] = "../../etc/passwd"
    (folder / STUDY_FILE).write_text(json.dumps(data))
    with pytest.raises(InputError, match="not the name of a consent text"):
        load_study(folder)


def test_a_study_without_consent_takes_no_new_version(tmp_path: Path) -> None:
    study, _ = create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "study")
    text = tmp_path / "v2.md"
    text.write_text("# Second\n")
    with pytest.raises(InputError, match="has no consent text"):
        add_consent_version(study.path, text, "2")
