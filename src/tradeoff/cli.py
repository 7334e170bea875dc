"""The ``tradeoff`` command line: argument parsing, wiring and exit codes.

Exit codes (DESIGN.md): 0 ok, 2 bad input (a one-paragraph message on stderr, no
traceback), 1 internal error. Every non-interactive command accepts ``--json`` and then
prints exactly one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tradeoff import __version__
from tradeoff.errors import InputError

DEFAULT_SCENARIO = "glaucoma-screening.toml"


class UsageError(Exception):
    """A bad command-line value; reported like an input error (exit code 2)."""


def scenarios_dir() -> Path:
    """The shipped scenarios: ``./scenarios`` if present, else the project's own."""
    here = Path.cwd() / "scenarios"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "scenarios"


def default_scenario() -> Path:
    return scenarios_dir() / DEFAULT_SCENARIO


def _floats(text: str, what: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what} must be comma-separated numbers, got {text!r}") from None


def _emit(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


# --------------------------------------------------------------------------------------
# tradeoff scenario check
# --------------------------------------------------------------------------------------


def cmd_scenario_check(args: argparse.Namespace) -> int:
    from tradeoff.scenario import load_scenario, summary

    loaded = load_scenario(args.file)
    if args.json:
        s = loaded.scenario
        _emit(
            {
                "ok": True,
                "id": s.id,
                "path": loaded.path,
                "sha256": loaded.sha256,
                "names": list(s.weight_names),
                "classes": [c.name for c in s.classes],
                "attributes": [{"name": a.name, "kind": a.kind} for a in s.attributes],
            }
        )
    else:
        print(summary(loaded))
        print("OK")
    return 0


# --------------------------------------------------------------------------------------
# tradeoff simulate
# --------------------------------------------------------------------------------------


def _format_summary(data: dict[str, Any]) -> str:
    lines = [
        f"strategy {data['strategy']}, noise {data['noise']}, {data['runs']} run(s)",
        f"questions: median {data['queries']['median']:g}, max {data['queries']['max']}",
        "L1 error:  median {median:.5f}, p90 {p90:.5f}, max {max:.5f}".format(**data["l1_error"]),
    ]
    if "weights" in data:
        width = max(len(n) for n in data["names"])
        lines.append(f"{'weight':<{width}}  estimate     truth")
        for i, name in enumerate(data["names"]):
            row = f"{name:<{width}}  {data['weights'][i]:8.4f}  {data['truth'][i]:8.4f}"
            if "intervals" in data:
                lo, hi = data["intervals"][i]
                row += f"   90% [{lo:.4f}, {hi:.4f}]"
            lines.append(row)
    return "\n".join(lines)


def cmd_simulate(args: argparse.Namespace) -> int:
    from tradeoff.elicitation import STRATEGY_FACTORIES
    from tradeoff.oracles import Noise
    from tradeoff.scenario import load_scenario
    from tradeoff.simulate import simulate

    scenario = load_scenario(args.scenario).scenario
    if args.strategy is not None and args.strategy not in STRATEGY_FACTORIES:
        known = ", ".join(sorted(STRATEGY_FACTORIES))
        raise UsageError(f"unknown strategy {args.strategy!r}; known strategies: {known}")
    truth = _floats(args.truth, "--truth") if args.truth else None
    if truth is not None:
        n = len(scenario.weight_names)
        if len(truth) != n:
            raise UsageError(
                f"--truth needs {n} weights, one per {', '.join(scenario.weight_names)}; "
                f"got {len(truth)}"
            )
        if any(w < 0 for w in truth) or sum(truth) <= 0:
            raise UsageError("--truth weights must be non-negative and not all zero")
    try:
        noise = Noise.parse(args.noise) if args.noise else None
    except ValueError as exc:
        raise UsageError(f"--noise: {exc}") from None
    if args.indifference < 0:
        raise UsageError("--indifference must be non-negative")
    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    if args.budget is not None and args.budget < 1:
        raise UsageError("--budget must be at least 1")
    if args.epsilon is not None and not 0 < args.epsilon < 0.5:
        raise UsageError("--epsilon must lie in (0, 0.5)")
    summary = simulate(
        scenario,
        truth=truth,
        runs=args.runs,
        strategy=args.strategy,
        noise=noise,
        indifference=args.indifference,
        budget=args.budget,
        epsilon=args.epsilon,
        seed=args.seed,
    )
    data = summary.to_dict()
    if args.json:
        _emit(data)
    else:
        print(_format_summary(data))
    return 0


# --------------------------------------------------------------------------------------
# tradeoff (no arguments)
# --------------------------------------------------------------------------------------


def cmd_default(args: argparse.Namespace) -> int:
    """Until the app exists: one simulated session on the default scenario, printed."""
    from tradeoff.scenario import load_scenario
    from tradeoff.simulate import simulate

    path = default_scenario()
    scenario = load_scenario(path).scenario
    print(f"{scenario.title}  ({path})")
    print("A simulated stakeholder (random true weights, exact answers) answers the questions:")
    data = simulate(scenario, seed=0).to_dict()
    print(_format_summary(data))
    return 0


# --------------------------------------------------------------------------------------
# parser and entry point
# --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tradeoff",
        description="Find out what a person values in a classifier, then pick the model.",
    )
    parser.add_argument("--version", action="version", version=f"tradeoff {__version__}")
    parser.set_defaults(func=cmd_default)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    sc = sub.add_parser("scenario", help="work with scenario files")
    sc_sub = sc.add_subparsers(title="scenario commands", metavar="ACTION", required=True)
    check = sc_sub.add_parser("check", help="validate a scenario file and print a summary")
    check.add_argument("file", help="scenario TOML file")
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.set_defaults(func=cmd_scenario_check)

    sim = sub.add_parser("simulate", help="run the elicitation against simulated stakeholders")
    sim.add_argument("scenario", help="scenario TOML file")
    sim.add_argument("--truth", help="true weights W1,W2,... (default: flat Dirichlet per run)")
    sim.add_argument("--strategy", help="elicitation strategy (default: the scenario's)")
    sim.add_argument("--noise", help="answer noise: exact, flip:P or logistic:T")
    sim.add_argument(
        "--indifference",
        type=float,
        default=0.0,
        metavar="TAU",
        help="answer 'can't tell' when |ψ_A − ψ_B| < TAU",
    )
    sim.add_argument("--budget", type=int, help="maximum number of questions")
    sim.add_argument("--epsilon", type=float, help="target precision of each ratio")
    sim.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    sim.add_argument("--runs", type=int, default=1, help="number of simulated stakeholders")
    sim.add_argument("--json", action="store_true", help="print one JSON document")
    sim.set_defaults(func=cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tradeoff`` console script; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except InputError as exc:
        print(exc.message(), file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"tradeoff: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
