"""A game as a perfect camera would see it: the phone's inputs, and after every other event
the table's view as the rules leave it, with what the camera saw in passing (an attacker's
slide, the cards turned over). The tracker's upper bound: what it recovers from these is
what it would recover from a camera that never misses a card.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tracker.camera.live import PHONE_EVENTS, LiveTracker
from tracker.camera.view import NO_HINTS, Hints, TableView, expected_view
from tracker.rules.engine import Game
from tracker.rules.events import Attack, Event, NewGame, SecretRevealed


@dataclass(frozen=True)
class Step:
    event: Event  # the truth
    phone: Event | None  # what the phone gives for it (None: the camera must see it)
    view: TableView  # the table once the event is complete
    hints: Hints = NO_HINTS


def perfect_views(events: list[Event]) -> Iterator[Step]:
    """Each event of a log, with what the phone and a perfect camera give the tracker."""
    truth = Game()
    for event in events:
        before = expected_view(truth)
        truth.apply(event)
        view = expected_view(truth)
        if event.type in PHONE_EVENTS:
            phone = NewGame(heroes=event.heroes) if isinstance(event, NewGame) else event
            yield Step(event, phone, view)
            continue
        if event.type == "mulligan":
            continue  # cards swapped in a hand: nothing on the table changes
        attackers = (event.attacker,) if isinstance(event, Attack) else ()
        if isinstance(event, SecretRevealed):
            turned = (event.card,)  # a secret is turned face up as it goes off
        elif event.type == "hero_power":
            turned = tuple(getattr(event, "revealed", None) or ()) or tuple(
                card for card in view.face_up() if card not in before.face_up())
        else:
            turned = ()
        yield Step(event, None, view, Hints(attackers, turned))


# what no camera can tell apart: left out when a tracked game is compared with its truth
UNSEEN_FIELDS = {"source", "confidence", "unsure", "revealed"}
TOKEN_ID = re.compile(r"T\d+")


def track_perfectly(events: list[Event]) -> tuple[LiveTracker, list[str], list[str]]:
    """The live tracker given what a perfect camera sees of a game (`perfect_views`); the
    keys of the truth's events the table shows, and of the events the camera gave."""
    tracker, truth = LiveTracker(), []
    for step in perfect_views(events):
        if step.phone is not None:
            tracker.phone(step.phone)
        else:
            truth.append(event_key(step.event))
            tracker.seen(step.view, step.hints)
    tracker.decide()  # the game's end: no better view comes
    return tracker, truth, [event_key(e) for e in tracker.events if e.source == "camera"]


def event_key(event: Event) -> str:
    """An event as the camera can know it: not who reported it, how sure, which cards a
    Totemic Call turned over that went back under the deck, the order in which split
    damage's points were dealt (their markers land together), nor which token is which
    (the engine's numbering: one face-down stack looks like another)."""
    fields = event.model_dump(mode="json", exclude=UNSEEN_FIELDS, exclude_none=True)
    for name in ("attacker", "target"):
        value = fields.get(name)
        if isinstance(value, list):
            fields[name] = sorted(_token(v) for v in value)
        elif isinstance(value, str):
            fields[name] = _token(value)
    return json.dumps(fields, sort_keys=True)


def _token(ident: str) -> str:
    return "token" if TOKEN_ID.fullmatch(ident) else ident


def readable_state(game: Game) -> dict:
    """The state a player reads off the score, token ids (the engine's numbering, which no
    camera reads) aside."""
    state = game.state().model_dump(exclude={"alerts"})
    for side in state["players"].values():
        for minion in side["minions"]:
            if minion["card"] is None:
                minion["id"] = "token"
    return state
