"""Access codes are checked at the scrypt cost their study was made with."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tradeoff.errors import InputError
from tradeoff.study.codes import CODE_COST, OLD_CODE_COST, code_method, normalise_code
from tradeoff.study.folder import create_study, load_study

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def _study(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    _, codes = create_study(SCENARIOS / "breast-cancer-triage.toml", ["p01", "p02"], tmp_path / "s")
    return tmp_path / "s", codes


def test_a_new_study_names_its_cost_and_its_codes_open_their_own_sessions(tmp_path: Path) -> None:
    folder, codes = _study(tmp_path)
    data = json.loads((folder / "study.json").read_text())
    assert (
        data["code_hash"]
        == code_method(CODE_COST)
        == ("scrypt n=1024 r=8 p=1 over the code without dashes, in capitals")
    )
    salt = bytes.fromhex(data["salt"])
    # Each stored hash is scrypt at n = 1024, worked out here by hashlib itself.
    for entry in data["participants"]:
        code = normalise_code(codes[entry["id"]]).encode()
        expected = hashlib.scrypt(code, salt=salt, n=1024, r=8, p=1, dklen=32).hex()
        assert entry["code_hash"] == expected
    study = load_study(folder)
    assert study.code_cost == CODE_COST
    assert study.participant_for(codes["p01"]) == "p01"
    assert study.participant_for(codes["p02"].lower().replace("-", " ")) == "p02"
    assert study.participant_for("K7QM-2XVD-9HJK-AB01") is None


@pytest.mark.parametrize("named", [True, False])
def test_a_study_made_before_keeps_its_cost(tmp_path: Path, named: bool) -> None:
    """A study file of 0.8.0 (n = 16384 named, or a study older still that named nothing)
    opens with the codes it gave out."""
    folder, codes = _study(tmp_path)
    path = folder / "study.json"
    data = json.loads(path.read_text())
    salt = bytes.fromhex(data["salt"])
    for entry in data["participants"]:
        code = normalise_code(codes[entry["id"]]).encode()
        entry["code_hash"] = hashlib.scrypt(code, salt=salt, n=16384, r=8, p=1, dklen=32).hex()
    if named:
        data["code_hash"] = "scrypt n=16384 r=8 p=1 over the code without dashes, in capitals"
    else:
        del data["code_hash"]
    path.write_text(json.dumps(data))
    study = load_study(folder)
    assert study.code_cost == OLD_CODE_COST
    assert study.participant_for(codes["p02"]) == "p02"
    assert study.participant_for(codes["p01"]) == "p01"


@pytest.mark.parametrize("method", ["scrypt n=2 r=8 p=1", 16384, ""])
def test_a_cost_nobody_wrote_is_refused_where_it_stands(tmp_path: Path, method: object) -> None:
    folder, _ = _study(tmp_path)
    path = folder / "study.json"
    data = json.loads(path.read_text())
    data["code_hash"] = method
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="is not a way codes are hashed") as err:
        load_study(folder)
    assert err.value.source == str(path)
    assert err.value.problems[0].location == "code_hash"
