"""`hearthtop-companion simulate`: the simulator's command, added to the product's command
line through the `hearthtop_companion.commands` entry point (pyproject.toml), so that the
product never imports the simulator. Light on purpose: the CLI loads it at every start; the
renderer is imported when the command runs."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_command(commands: argparse._SubParsersAction) -> None:
    simulate = commands.add_parser(
        "simulate", help="render an event log as the table video a webcam above would record")
    simulate.add_argument("log", help="event log, one JSON event a line (a bot game's has its "
                                      "deck order)")
    simulate.add_argument("--out", required=True,
                          help="folder for frames/, phone.jsonl, truth.jsonl and meta.json")
    simulate.add_argument("--seed", type=int, default=0,
                          help="design, table, camera, light, hands, timings (default 0)")
    simulate.add_argument("--size", default="1280x720", help="frame size WxH (default 1280x720)")
    simulate.add_argument("--fps", type=float, default=15.0,
                          help="frames a second (default 15)")
    simulate.add_argument("--design", help="card design (default: a held-out one, by seed)")
    simulate.add_argument("--faults", metavar="SPEC",
                          help="camera faults: random:K, or KIND@SECONDS+DURATION,... with kinds "
                               "dropout freeze black bump occlude light resize")
    simulate.set_defaults(handler=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    from .game_video import simulate

    summary = simulate(Path(args.log), Path(args.out), seed=args.seed, size=args.size,
                       fps=args.fps, design=args.design, faults=args.faults)
    print(summary.line())
    return 0
