"""Benchmark: full bot games on one core.

Prints four figures: the bot playing whole games (the rules engine plus the bot's search of
legal moves, which asks the engine to check every candidate event); the engine alone
replaying the same logs (`Game.replay`, a fold of `apply`: what a restart or a long
recording costs); `Game.pop` (undo, over the last 20 events of each game: what the tracker
does when it takes back a guess); and `Game.copy` (every tenth event of each game: what it
does to try a candidate event).

    python -m bench.engine [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time

from bench.common import pin_to_one_core
from tracker.rules.bot import play_game
from tracker.rules.engine import Game
from tracker.rules.heroes import hero_names


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

    pop_seconds, pops = _time_pops(logs)
    copy_seconds, copies = _time_copies(logs)

    print(f"games: {len(logs)}, events: {events} ({events / len(logs):.1f} a game)")
    print(f"bot games (engine + move search): {len(logs) / bot_seconds:8.1f} games/s "
          f"{events / bot_seconds:10.0f} events/s")
    print(f"engine replay (apply only):       {len(logs) / replay_seconds:8.1f} games/s "
          f"{events / replay_seconds:10.0f} events/s  (median of 3)")
    print(f"pop (undo the last event):        {pops / pop_seconds:10.0f} pops/s "
          f"({pops} pops, the last 20 events of each game)")
    print(f"copy (an independent game):       {copies / copy_seconds:10.0f} copies/s "
          f"({copies} copies, every tenth event)")


def _time_pops(logs: list[list], depth: int = 20) -> tuple[float, int]:
    """Undo the last `depth` events of each whole game, one at a time; only pops are timed."""
    elapsed, count = 0.0, 0
    for log in logs:
        game = Game.replay(log)
        for _ in range(min(depth, len(log) - 1)):
            started = time.perf_counter()
            game.pop()
            elapsed += time.perf_counter() - started
            count += 1
    return elapsed, count


def _time_copies(logs: list[list]) -> tuple[float, int]:
    elapsed, count = 0.0, 0
    for log in logs:
        game = Game()
        for n, event in enumerate(log, start=1):
            game.apply(event)
            if n % 10 == 0:
                started = time.perf_counter()
                game.copy()
                elapsed += time.perf_counter() - started
                count += 1
    return elapsed, count


if __name__ == "__main__":
    main()
