"""The result screen says why its pick is recommended when another model is more often the
best (as ``pick`` and the report say it): a clinician read "Recommended for you:
logreg-C1-t0.35 … 38%" above a list where logreg-C1-t0.2 was best in 46%, with no word on
why."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_tui import answered_and_confirmed, pool_app

pytestmark = pytest.mark.e2e


async def test_the_pick_that_is_not_the_likeliest_best_says_why(tmp_path: Path) -> None:
    from tradeoff.choose.words import LIKELIER

    app = pool_app(tmp_path, budget=3)
    async with app.run_test(size=(140, 45)) as pilot:
        result = await answered_and_confirmed(pilot, "bbb")
        advice = result.decision.recommendations[0]
        words = str(result.query_one("#result-recommend").render())
    assert advice.p_best is not None and advice.measured_best is None
    p = list(advice.p_best)
    likeliest = max(range(len(p)), key=lambda i: (p[i], -i))
    assert p[likeliest] >= p[advice.index] + LIKELIER, (
        "pick answers that make the pick not the likeliest"
    )
    names = result.decision.pool.names
    said = " ".join(words.split())
    assert f"{names[likeliest]} is more often the best" in said, said
    assert f"but {advice.name} is recommended because it has the highest expected value" in said
