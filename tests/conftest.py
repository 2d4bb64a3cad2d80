"""Shared helpers of the rule tests: build a game a few turns in, apply or check events
written as keyword arguments, and read the state as the contract's JSON."""

from __future__ import annotations

import pytest

from tracker.rules.engine import Game
from tracker.rules.events import EndTurn, NewGame, parse_event


class Table:
    """A game under test with short ways to apply events and read the state."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def do(self, type: str, **fields) -> list[str]:
        """Apply one event; return the alert codes it raised."""
        return [a.code for a in self.game.apply(parse_event({"type": type, **fields}))]

    def check(self, type: str, **fields) -> list[str]:
        """The alert codes an event would raise, without applying it."""
        return [a.code for a in self.game.check(parse_event({"type": type, **fields}))]

    def play(self, player: str, card: str, **fields) -> list[str]:
        return self.do("play", player=player, card=card, **fields)

    def attack(self, attacker: str, target: str) -> list[str]:
        return self.do("attack", attacker=attacker, target=target)

    def power(self, player: str, **fields) -> list[str]:
        return self.do("hero_power", player=player, **fields)

    def reveal(self, player: str, card: str, **fields) -> list[str]:
        return self.do("secret_revealed", player=player, card=card, **fields)

    def end_turn(self, times: int = 1) -> None:
        for _ in range(times):
            self.game.apply(EndTurn())

    @property
    def state(self) -> dict:
        return self.game.state().model_dump()

    def side(self, player: str) -> dict:
        return self.state["players"][player]

    def minion(self, ident: str) -> dict | None:
        for side in self.state["players"].values():
            for minion in side["minions"]:
                if minion["id"] == ident:
                    return minion
        return None

    def stats(self, ident: str) -> tuple[int, int]:
        return stats(self.minion(ident))

    def minion_ids(self, player: str) -> list[str]:
        return [m["id"] for m in self.side(player)["minions"]]

    @property
    def deck(self) -> int:
        return self.state["deck"]

    def ledger_total(self) -> int:
        return sum(self.game.table.ledger().values())


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory, monkeypatch) -> None:
    """The default data folder (registered decks, games) is the test's own, never the
    user's: a deck registered on this machine must not change what a test reads."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg")))


def ok(codes: list[str]) -> None:
    """A legal event raises no alert at all."""
    assert codes == []


def stats(minion: dict) -> tuple[int, int]:
    """A minion's (attack, health) as the state shows them."""
    return minion["attack"], minion["health"]


def start(p1: str = "jaina", p2: str = "garrosh", *, turn: int = 1,
          deck: list[str] | None = None) -> Table:
    """A new game (no mulligans) brought to the start of `turn` (p1 acts on odd turns).

    With no `deck` the order is unknown, as at a real table: hands hold unseen cards, so any
    card can be played from them. Crystals at turn t: min(6, (t + 1) // 2) for p1,
    min(6, t // 2) for p2.
    """
    game = Game()
    game.apply(NewGame(heroes={"p1": p1, "p2": p2}, deck=deck))
    game.begin()
    table = Table(game)
    table.end_turn(turn - 1)
    return table


@pytest.fixture
def new_table():
    return start
