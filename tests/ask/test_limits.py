"""Files small enough to mail cannot blow up memory or time: a 200 KB scenario with a
100,000-part dotted key (23.9 GB before the bound), deep arrays, and the same inside a
session header, each give a located error (exit 2) quickly and in little memory."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import SCENARIOS

pytestmark = pytest.mark.e2e

PROBE = """
import resource, sys
from tradeoff.cli import main
code = main(sys.argv[1:])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run(*argv: str) -> tuple[int, int, str]:
    """(exit code, peak RSS in KB, stderr) of a command run in its own process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60
    )
    assert time.perf_counter() - start < 30
    code, rss = done.stdout.split()
    return int(code), int(rss), done.stderr


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("dotted", "a" + ".a" * 100_000 + " = 1\n", "dotted parts"),
        ("dotted-30k", "a" + ".a" * 30_000 + " = 1\n", "dotted parts"),
        ("deep", "x = " + "[" * 50_000 + "]" * 50_000 + "\n", "nest"),
        ("huge", "# " + "x" * 1_100_000 + "\n", "at most 1,000,000"),
    ],
    ids=["dotted-100k", "dotted-30k", "deep-50k", "huge-1.1MB"],
)
def test_an_oversized_scenario_is_refused_quickly(
    tmp_path: Path, name: str, text: str, says: str
) -> None:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    code, rss_kb, err = run("scenario", "check", str(path))
    assert code == 2 and says in err and "Traceback" not in err
    assert f"{path}: line 1" in err or "bytes" in err
    assert rss_kb < 1_000_000  # well under 1 GB


def test_the_same_inside_a_session_header_is_refused(tmp_path: Path) -> None:
    from tradeoff.record.records import _CHAIN_SEED, chain_hash  # the header chains from the seed

    assert _CHAIN_SEED
    text = "a" + ".a" * 100_000 + " = 1\n"
    import hashlib

    header = {
        "type": "header",
        "format": 3,
        "tradeoff": "0",
        "participant": "p01",
        "scenario_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "scenario_text": text,
        "strategy": "probabilistic",
        "seed": 0,
    }
    content = json.dumps(header)
    line = content[:-1] + f', "chain": "{chain_hash(None, content)}"}}\n'
    path = tmp_path / "s.jsonl"
    path.write_text(line)
    code, rss_kb, err = run("session", "show", str(path))
    assert code == 2 and "dotted parts" in err and "Traceback" not in err
    assert rss_kb < 1_000_000
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0
    assert (SCENARIOS / "glaucoma-screening.toml").is_file()
