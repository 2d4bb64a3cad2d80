"""Benchmark: full bot games on one core.

Prints two figures: the bot playing whole games (the rules engine plus the bot's search of
legal moves, which asks the engine to check every candidate event), and the engine alone
replaying the same logs (`Game.replay`, a fold of `apply`: what a restart or a long
recording costs).

    python bench/engine.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tracker.bot import play_game
from tracker.engine import Game
from tracker.heroes import hero_names


def pin_to_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity here)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=162, help="games to play (default 162)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"hearthtop engine benchmark, {pin_to_one_core()}, Python {sys.version.split()[0]}")

    pairs = list(itertools.product(hero_names(), repeat=2))
    logs = []
    started = time.perf_counter()
    for i in range(args.games):
        game = play_game(pairs[i % len(pairs)], seed=args.seed + i)
        logs.append(game.events)
    bot_seconds = time.perf_counter() - started
    events = sum(len(log) for log in logs)

    replay_times = []
    for _ in range(3):
        started = time.perf_counter()
        for log in logs:
            Game.replay(log)
        replay_times.append(time.perf_counter() - started)
    replay_seconds = statistics.median(replay_times)

    print(f"games: {len(logs)}, events: {events} ({events / len(logs):.1f} a game)")
    print(f"bot games (engine + move search): {len(logs) / bot_seconds:8.1f} games/s "
          f"{events / bot_seconds:10.0f} events/s")
    print(f"engine replay (apply only):       {len(logs) / replay_seconds:8.1f} games/s "
          f"{events / replay_seconds:10.0f} events/s  (median of 3)")


if __name__ == "__main__":
    main()
