"""No accepted answer is lost when the disk fills up (a file-size limit stands in for it).

The app runs in a subprocess whose ``RLIMIT_FSIZE`` is lowered after the first answers, so
the next line can only be written in part. The app must keep that answer, say why it
stopped, leave the file a sequence of whole records, and save the answer once the person
retries after space was freed; quitting instead says what was not saved.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ..conftest import ROOT, small_scenario_file

pytestmark = pytest.mark.e2e

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, resource, sys
    from pathlib import Path

    from tradeoff.ask.scenario import SpecOverrides
    from tradeoff.record.log import read_session
    from tradeoff.tui import make_app
    from tradeoff.tui.screens.question import QuestionScreen
    from tradeoff.tui.dialogs import SaveFailedScreen
    from tradeoff.tui.screens.start import StartScreen

    scenario, sessions = sys.argv[1], sys.argv[2]
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)


    def on_disk(path):
        return sum(e.type == "answer" for e in read_session(path).events)


    async def main():
        report = {}
        app = make_app(
            scenario,
            sessions_dir=sessions,
            participant="dr-lee",
            overrides=SpecOverrides(budget=20),
        )
        async with app.run_test(size=(100, 40)) as pilot:
            for _ in range(400):
                await pilot.pause(0.05)
                if isinstance(app.screen, StartScreen):
                    break
            await pilot.pause()
            await pilot.click("#start")
            for _ in range(1200):
                await pilot.pause(0.05)
                if isinstance(app.screen, QuestionScreen):
                    break
            path = app.recorder.path
            await pilot.press("a")
            await pilot.pause()
            line = len(path.read_bytes().splitlines()[-1]) + 1
            limit = path.stat().st_size + line + line // 2
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
            await pilot.press("b")  # fits under the limit
            await pilot.pause()
            await pilot.press("a")  # only part of this line fits
            await pilot.pause()
            report["screen"] = type(app.screen).__name__
            if isinstance(app.screen, SaveFailedScreen):
                report["reason"] = app.screen.error.reason
                report["what"] = app.screen.what
            report["answered_in_app"] = app.recorder.engine.answered
            report["on_disk"] = on_disk(path)
            report["size_ok"] = path.stat().st_size <= limit
            report["warnings"] = read_session(path).warnings
            await pilot.press("r")  # still full: the same dialog again
            await pilot.pause()
            report["screen_after_failed_retry"] = type(app.screen).__name__
            resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))  # space freed
            await pilot.press("r")
            await pilot.pause()
            report["screen_after_retry"] = type(app.screen).__name__
            report["answered_after_retry"] = app.recorder.engine.answered
            report["on_disk_after_retry"] = on_disk(path)
            choices = [e.choice.value for e in read_session(path).events]
            report["choices"] = choices
            size = path.stat().st_size
            resource.setrlimit(resource.RLIMIT_FSIZE, (size + 10, hard))
            await pilot.press("b")
            await pilot.pause()
            await pilot.press("q")  # quit without the unsaved answer
            await pilot.pause()
            report["exit_message"] = " ".join(app.farewell)
        report["return_code"] = app.return_code
        report["final_on_disk"] = on_disk(path)
        print(json.dumps(report))


    asyncio.run(main())
    """
)


def test_full_disk_loses_no_accepted_answer(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(scenario), str(tmp_path / "sessions")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # The third answer could not be written: the app says so and does not move on.
    assert report["screen"] == "SaveFailedScreen"
    assert "too large" in report["reason"].lower()
    assert report["what"] == "Your answer to question 3 (Option A)"
    assert report["answered_in_app"] == 2 and report["on_disk"] == 2
    assert report["size_ok"] and report["warnings"] == []  # the partial line was cut off
    assert report["screen_after_failed_retry"] == "SaveFailedScreen"
    # Space freed: the kept answer is saved, and the next question shows.
    assert report["screen_after_retry"] == "QuestionScreen"
    assert report["answered_after_retry"] == 3 and report["on_disk_after_retry"] == 3
    assert report["choices"] == ["left", "right", "left"]
    # Full again, and the person quits: told what was not saved, every saved answer kept.
    assert report["return_code"] == 1
    assert "Your answer to question 4 (Option B) was not saved" in report["exit_message"]
    assert "tradeoff elicit --resume" in report["exit_message"]
    assert report["final_on_disk"] == 3
