"""Words for people: a line about each event, the phrases of alert messages, and the board
as a short summary (what `str(game)` and the command line print)."""

from __future__ import annotations

import re

from cards import JOKER

from .board import Board, Character
from .events import (
    Attack,
    Concede,
    EndTurn,
    Event,
    HeroPower,
    Mulligan,
    NewGame,
    Play,
    SecretRevealed,
)
from .state import GameState
from .table import Minion, Side


def describe_event(board: Board, event: Event, *, hide_secrets: bool = False,
                   names: dict[str, str] | None = None, turn: int | None = None) -> str:
    """One line about an event that `board` has just applied; with `hide_secrets`, a secret
    set is told as the table shows it, face down ("p1 sets a secret"), until its reveal
    names it. `names`: words for the minions' ids (`minion_names`), else the ids. `turn`:
    the turn it was made in, where the board's is past it (an end of turn), for the
    line's "[turn N]"."""
    prefix = f"[turn {board.turn if turn is None else turn:>2}] "
    names = names or {}

    def called(ids: list[str]) -> str:
        return ", ".join(names.get(i, i) for i in ids)

    if isinstance(event, NewGame):
        sides = board.sides
        return f"new game: p1 {sides['p1'].hero.name} against p2 {sides['p2'].hero.name}"
    if isinstance(event, Mulligan):
        return f"{event.player} mulligans {event.count} card{'s' * (event.count != 1)}"
    if isinstance(event, Play):
        if hide_secrets and board.sides[event.player].hero.is_secret(event.card):
            return f"{prefix}{event.player} sets a secret"
        what = "The Coin" if event.card == JOKER else event.card
        name = board.ability_of(event.player, event.card).name
        extra = f" ({name})" if name and event.card != JOKER else ""
        target = f" at {called(event.targets)}" if event.targets else ""
        return f"{prefix}{event.player} plays {what}{extra}{target}"
    if isinstance(event, Attack):
        return f"{prefix}{called([event.attacker])} attacks {called([event.target])}"
    if isinstance(event, HeroPower):
        target = f" at {called(event.targets)}" if event.targets else ""
        return f"{prefix}{event.player} uses {board.sides[event.player].hero.power.name}{target}"
    if isinstance(event, SecretRevealed):
        name = board.ability_of(event.player, event.card).name
        target = f" at {called(event.targets)}" if event.targets else ""
        return f"{prefix}{event.player} reveals the secret {event.card} ({name}){target}"
    if isinstance(event, EndTurn):
        return f"{prefix}turn ends"
    if isinstance(event, Concede):
        return f"{prefix}{event.player} concedes"
    return f"{prefix}{event.type}"


def minion_names(*states: GameState) -> dict[str, str]:
    """The minions of the states by the words players know them by: a token by its name and
    stats ("Silver Hand Recruit (1/1)"), a card by its id with its name where it has one of
    its own ("6S (Searing Totem)"); an id in several states, as the first says it."""
    names: dict[str, str] = {}
    for state in reversed(states):
        for side in state.players.values():
            for m in side.minions:
                names[m.id] = (f"{m.name} ({m.attack}/{m.health})" if m.card is None
                               else m.id if m.name in (m.id, m.card) else f"{m.id} ({m.name})")
    return names


def outcome(before: GameState, after: GameState, rattles: frozenset[str] = frozenset()) -> str:
    """What an event did, from the states on either side of it, in a few words: each hero's
    health and armor ("p2 -3", "p1 armor +2"), Overload taken on ("p1 overload +2"), who was
    frozen ("p2 frozen"), the minions hurt or healed ("4H -2") and those that died ("2D
    dies"; a token by its name; "(Deathrattle)" after one of `rattles`, the ids of minions
    and weapons whose death sets one off), the tokens that came ("Silver Hand Recruit (1/1)
    summoned"), a weapon's durability ("p1's weapon -1", "p1's weapon breaks"). "" when it
    changed none of these (a minion laid, a turn ended)."""
    said = []
    named = {m.id: m.name for side in before.players.values() for m in side.minions
             if m.card is None}  # a token by its name: its stats are in the line's numbers
    for player, now in after.players.items():
        was = before.players[player]
        said += _change(player, now.health - was.health)
        said += _change(f"{player} armor", now.armor - was.armor)
        said += _change(f"{player} overload", max(0, now.overload - was.overload))
        said += [f"{player} frozen"] if now.frozen and not was.frozen else []
        if was.weapon and not now.weapon:
            said.append(f"{player}'s weapon breaks" + _rattle(was.weapon.card, rattles))
        elif was.weapon and now.weapon and now.weapon.card == was.weapon.card:
            said += _change(f"{player}'s weapon", now.weapon.durability - was.weapon.durability)
        alive = {m.id: m for m in now.minions}
        for minion in was.minions:
            who = named.get(minion.id, minion.id)
            if minion.id not in alive:
                said.append(f"{who} dies" + _rattle(minion.id, rattles))
                continue
            said += _change(who, alive[minion.id].health - minion.health)
            said += [f"{who} frozen"] if alive[minion.id].frozen and not minion.frozen else []
        had = {m.id for m in was.minions}
        said += [f"{m.name} ({m.attack}/{m.health}) summoned" for m in now.minions
                 if m.card is None and m.id not in had]
    return ", ".join(said)


def _rattle(ident: str, rattles: frozenset[str]) -> str:
    return " (Deathrattle)" if ident in rattles else ""


def _change(what: str, delta: int) -> list[str]:
    return [f"{what} {delta:+d}"] if delta else []


SUIT_SIGNS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_CARD_ID = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([SHDC])(?![0-9A-Za-z])")
_JOKER_ID = re.compile(rf"(?<![0-9A-Za-z]){JOKER}(?![0-9A-Za-z])")


def card_words(text: str) -> str:
    """Card ids in a text as the pages show them: with their suits' signs ("copy of 8C"
    -> "copy of 8♣", "10H" -> "10♥"), the joker as The Coin."""
    return _JOKER_ID.sub("The Coin", _CARD_ID.sub(
        lambda m: m.group(1) + SUIT_SIGNS[m.group(2)], text))


def _named(card: str | None, name: str) -> str:
    """A minion or weapon as players name it: its card ("9♣"), with its name where it has
    one of its own ("6♠ Searing Totem"); a token or a weapon with no card by its name."""
    if card is None:
        return card_words(name)
    return card_words(card if name in ("", card) else f"{card} {name}")


def summary(state: GameState) -> str:
    """The board in a few lines, in the pages' words: the turn and deck, each side (a
    hero's health as the pages show it, never below 0; cards with their suits' signs,
    tokens by their names), and the result."""
    lines = [f"turn {state.turn}, deck {state.deck}, discard {state.discard}"
             + (", deck empty" if state.deck_empty else "")]
    for player, side in state.players.items():
        minions = ", ".join(f"{_named(m.card, m.name)} ({m.attack}/{m.health})"
                            for m in side.minions)
        weapon = side.weapon
        lines.append(
            f"{player} {side.name}: {max(0, side.health)} health, {side.armor} armor, "
            f"{side.crystals} crystals, {side.hand} in hand"
            + (f", weapon {_named(weapon.card, weapon.name)} ({weapon.attack}/"
               f"{weapon.durability})" if weapon else "")
            + (f", minions {minions}" if minions else ""))
    if state.over:
        winner = state.winner
        lines.append("game over: " + ("a draw" if winner == "draw" else f"{winner} wins"))
    return "\n".join(lines)


# --- phrases of alert messages ---------------------------------------------------------

def event_words(event: Event) -> str:
    """An event named for a message: "p2's play of 6H", "6H's attack", "the end of turn"."""
    noun = {"hero_power": "hero power", "secret_revealed": "secret reveal",
            "end_turn": "end of turn", "concede": "concession",
            "markers": "marker count"}.get(event.type, event.type)
    who = getattr(event, "player", None) or getattr(event, "attacker", None)
    words = f"{who}'s {noun}" if who else f"the {noun}"
    card = getattr(event, "card", None)
    return f"{words} of {card}" if card else words


def face_down_words(board: Board, text: str) -> str:
    """`text` as anyone at the table may read it while secrets lie face down: each
    face-down secret's card and name told as "a secret" ("p1 played a secret (3 mana) with
    2 mana available"). An alert about a secret's play names its card; the public state
    says it so until the secret is revealed."""
    for player, side in board.sides.items():
        for card in side.secrets:
            name = board.ability_of(player, card).name
            text = re.sub(rf"(?<![0-9A-Z]){re.escape(card)}(?![0-9A-Z])"
                          rf"(?: \({re.escape(name)}\))?", "a secret", text)
            if name:
                text = re.sub(rf"\b{re.escape(name)}\b", "a secret", text)
    return text


def in_play_words(sides: dict[str, Side], card: str) -> str:
    """What a face-up card on the table is: a secret, a weapon or part of a minion."""
    for player, side in sides.items():
        if card in side.secrets:
            return f"{player}'s secret"
        if side.weapon and side.weapon.card == card:
            return f"{player}'s weapon"
        for minion in side.minions:
            if card in [minion.card, *(c for c, _, _ in minion.face_up)]:
                return f"a card of {player}'s minion {minion.id}"
    return "another card"


def place_words(place: str) -> str:
    """A place of `tracker.rules.table.Table.where` in words: "in p1's hand"."""
    kind, _, player = place.partition(":")
    return {"deck": "in the draw deck", "set_aside": "set aside in the mulligan",
            "hand": f"in {player}'s hand", "marker": f"a face-down marker on {player}'s side"
            }.get(kind, place)


def ref_words(ref: Character, player: str) -> str:
    """A character as `player` sees it: "an enemy minion (6H)", "the friendly hero (p1)"."""
    if isinstance(ref, Minion):
        return f"{'a friendly' if ref.owner == player else 'an enemy'} minion ({ref.id})"
    return f"{'the friendly' if ref == player else 'the enemy'} hero ({ref})"
