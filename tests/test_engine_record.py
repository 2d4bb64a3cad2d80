"""The engine keeps its behaviour: every recorded game replays to the same alerts, refusals
and final state (`tests/engine_record.py` made the record before the engine was reshaped)."""

from __future__ import annotations

import gzip
import json
from functools import cache

import pytest
from engine_record import RECORD, outcome

from tracker.rules.bot import play_game
from tracker.rules.events import parse_event


@cache
def record() -> list[dict]:
    with gzip.open(RECORD, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.mark.parametrize("kind", ["bot", "chaos", "test", "sample"])
def test_recorded_games_replay_to_the_same_alerts_and_state(kind):
    games = [g for g in record() if g["kind"] == kind]
    assert games
    for game in games:
        results, state = outcome([parse_event(e) for e in game["events"]])
        assert json.loads(json.dumps(results)) == game["results"], game["name"]
        assert json.loads(json.dumps(state)) == game["state"], game["name"]


def test_the_bot_still_plays_the_recorded_games():
    """The bot asks the engine's checks at every step: the same games mean the same checks."""
    bots = [g for g in record() if g["kind"] == "bot"][:60]
    for game in bots:
        p1, p2, seed = game["name"].split("-")
        played = play_game((p1, p2), seed=int(seed))
        assert [json.loads(e.to_json()) for e in played.events] == game["events"], game["name"]
