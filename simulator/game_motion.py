"""The physical table of a simulated game and the players' hands that move its cards.

`Stage` holds the table (the pieces of `simulator.game_table`, the deck's count, the
discard pile, the minions' places) and the players' arms, and moves cards as people do:
a hand reaches in from its player's side, takes a card (or a minion with everything under
it), carries it, lets go; every frame of that goes to `sink(n, still, moving, hands)`.
Where cards come from and go (the deck's top and bottom, the discard, a player's edge) is
here too; what each event of the log moves is `simulator.game_events`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from cards import BACK, DECK
from simulator.game_table import Geometry, Piece
from simulator.hands import SKIN_TONES, Hand
from tracker.camera.view import TableView
from tracker.rules.engine import Game
from tracker.rules.events import Event
from tracker.rules.table import EXTERNAL

STAND_IN = EXTERNAL  # a marker laid once the deck was empty (the rules ledger's stand-in)
Sink = Callable[[int, list[Piece], list[Piece], list[Hand]], None]
PLAYERS = ("p1", "p2")


@dataclass
class Arm:
    """One player's hand over the table; `tip` None while it is away."""

    player: str
    look: Hand  # skin, size, sleeve …; entry and tip are set each frame
    shoulder_x: float
    speed: float  # mm/s
    tip: np.ndarray | None = None


def arms(rng: np.random.Generator, size: tuple[float, float]) -> dict[str, Arm]:
    out = {}
    for player in PLAYERS:
        sleeve = (tuple(int(c) for c in rng.integers(20, 200, 3)) if rng.random() < 0.7
                  else None)
        look = Hand((0.0, 0.0), (0.0, 0.0), SKIN_TONES[rng.integers(len(SKIN_TONES))],
                    float(rng.uniform(78, 95)), float(rng.uniform(0.05, 0.5)),
                    int(rng.choice([-1, 1])), sleeve, float(rng.uniform(60, 200)))
        shoulder = size[0] / 2 + float(rng.choice([-1, 1]) * rng.uniform(80, 220))
        out[player] = Arm(player, look, shoulder, float(rng.uniform(650, 950)))
    return out


class Identities:
    """Names for the face-up cards no event names (a hand's overflow in the discard, a None
    in the rules' ledger): cards that the log never mentions, so that none is seen twice."""

    def __init__(self, events: list[Event], rng: np.random.Generator) -> None:
        seen: set[str] = set()
        for event in events:
            for name in ("card", "attacker", "target", "revealed", "deck"):
                value = getattr(event, name, None)
                seen.update([value] if isinstance(value, str) else value or [])
        self.pool = [DECK[i] for i in rng.permutation(len(DECK)) if DECK[i] not in seen]

    def resolve(self, discard: tuple[str | None, ...]) -> list[str]:
        names, unseen = [], 0
        for card in discard:
            if card is None:
                pool = self.pool or [c for c in DECK if c not in discard]
                card = pool[unseen % len(pool)]
                unseen += 1
            names.append(card)
        return names


def _ease(t: float) -> float:
    return t * t * (3.0 - 2.0 * t)


def _between(a: Piece, b: Piece, t: float) -> Piece:
    turn = (b.rot - a.rot + 180.0) % 360.0 - 180.0
    return replace(b, x=a.x + (b.x - a.x) * t, y=a.y + (b.y - a.y) * t, rot=a.rot + turn * t,
                   face_up=b.face_up if t >= 0.5 else a.face_up)


class Stage:
    def __init__(self, geo: Geometry, rng: np.random.Generator, fps: float, sink: Sink,
                 identities: Identities) -> None:
        self.geo, self.rng, self.fps, self.sink, self.ids = geo, rng, fps, sink, identities
        self.arms = arms(rng, (geo.width, geo.height))
        self.pieces: dict[str, Piece] = {}
        self.deck = 52
        self.discard: list[tuple[str, str]] = []  # (card, who dropped it), bottom to top
        self.slots: dict[str, dict[str, int]] = {p: {} for p in PLAYERS}
        self.frame = 0
        self.landed: int | None = None  # the first frame showing the last card put down
        self.set_aside = {p: 0 for p in PLAYERS}  # cards each player mulliganed away
        self.snaps = 0  # cards the moves did not bring where the view says (should be none)
        self.settled = (0, 0)  # the last event's still frames, first and last
        self.on_frame: Callable[[int], None] | None = None  # called before each frame

    # --- frames ------------------------------------------------------------------------
    def emit(self, moving: dict[str, Piece] | None = None) -> None:
        moving = moving or {}
        if self.on_frame:
            self.on_frame(self.frame)
        still = [p for k, p in self.pieces.items() if k not in moving]
        still += self.geo.deck_pile(self.deck) + self.geo.discard_pile(self.discard)
        hands = []
        for arm in self.arms.values():
            if arm.tip is not None:
                far = self.geo.height + 520.0 if arm.player == "p1" else -520.0
                hands.append(replace(arm.look, entry=(arm.shoulder_x, far),
                                     tip=(float(arm.tip[0]), float(arm.tip[1]))))
        self.sink(self.frame, still, list(moving.values()), hands)
        self.frame += 1

    def wait(self, seconds: float) -> None:
        for _ in range(max(1, round(seconds * self.fps))):
            self.emit()

    def _steps(self, distance: float, arm: Arm) -> int:
        speed = arm.speed * float(self.rng.uniform(0.85, 1.15))
        return max(2, round(distance / speed * self.fps))

    # --- hands ---------------------------------------------------------------------------
    def reach(self, player: str, point: np.ndarray) -> None:
        """Bring `player`'s hand to a point (the other player's hand leaves first)."""
        for other in self.arms.values():
            if other.player != player and other.tip is not None:
                self.leave(other.player)
        arm = self.arms[player]
        start = arm.tip if arm.tip is not None else self.geo.edge(player, point[0])
        steps = self._steps(float(np.linalg.norm(point - start)), arm)
        for i in range(1, steps + 1):
            arm.tip = start + (point - start) * _ease(i / steps)
            self.emit()

    def leave(self, player: str) -> None:
        arm = self.arms[player]
        if arm.tip is None:
            return
        start, end = arm.tip, self.geo.edge(player, arm.tip[0])
        end[1] += 150.0 if player == "p1" else -150.0  # well off the table
        steps = self._steps(float(np.linalg.norm(end - start)), arm)
        for i in range(1, steps + 1):
            arm.tip = start + (end - start) * _ease(i / steps)
            self.emit()
        arm.tip = None

    def leave_all(self) -> None:
        for player in PLAYERS:
            self.leave(player)

    def carry(self, player: str, moves: dict[str, tuple[Piece, Piece]], grip: str,
              on_lift: Callable[[], None] | None = None,
              on_land: Callable[[], None] | None = None) -> None:
        """`player` takes the pieces (held by `grip`) from their start to their end poses;
        by default they stay there (`on_land` may take them away instead)."""
        self.reach(player, self.geo.grip(moves[grip][0], player))
        self.wait(float(self.rng.uniform(0.05, 0.15)))
        for key in moves:
            self.pieces.pop(key, None)
        if on_lift:
            on_lift()
        arm = self.arms[player]
        distance = max(float(np.linalg.norm(b.xy - a.xy)) for a, b in moves.values())
        steps = self._steps(max(distance, 30.0), arm)
        for i in range(1, steps + 1):
            now = {k: _between(a, b, _ease(i / steps)) for k, (a, b) in moves.items()}
            arm.tip = self.geo.grip(now[grip], player)
            self.emit(now)
        if on_land:
            on_land()
        else:
            # a face-down card keeps what it is (a stand-in stays one) wherever it goes
            self.pieces.update({k: b if b.face_up else replace(b, card=a.card)
                                for k, (a, b) in moves.items()})
        self.landed = self.frame

    def fly(self, player: str, key: str, start: Piece, end: Piece, **hooks) -> None:
        self.carry(player, {key: (start, end)}, key, **hooks)

    # --- where cards come from and go ------------------------------------------------------
    def _deck_top(self, face_up: bool = False, card: str = BACK) -> Piece:
        return replace(self.geo.deck_top(self.deck), card=card, face_up=face_up)

    def _edge_piece(self, player: str, card: str, face_up: bool, x: float) -> Piece:
        ex, ey = self.geo.edge(player, x + float(self.rng.normal(0, 60)))
        return Piece(card, face_up, float(ex), float(ey), self.geo.upright(player), 300.0,
                     owner=player)

    def _source(self, card: str, player: str, place: str | None, x: float
                ) -> tuple[Piece, Callable[[], None] | None]:
        """Where a face-up card comes from: the discard pile, the deck's top (turned over),
        a player's hand (their edge of the table)."""
        names = [c for c, _ in self.discard]
        if card in names:
            i = names.index(card)
            start = self.geo.discard_pose(card, self.discard[i][1], i)
            return start, lambda: self.discard.pop(i)
        if place == "deck" and self.deck > 0:
            return self._deck_top(True, card), self._took_from_deck
        holder = place[5:] if place and place.startswith("hand:") else player
        return self._edge_piece(holder, card, True, x), None

    def _took_from_deck(self) -> None:
        self.deck = max(0, self.deck - 1)

    def _put_in_deck(self) -> None:
        self.deck += 1

    def to_deck(self, player: str, keys: list[str]) -> None:
        """Face-down cards (or one face-up) back under the deck, taken together; stand-ins
        (markers laid once the deck was empty) go back to the player's side instead."""
        spare = [k for k in keys if self.pieces[k].card == STAND_IN]
        keys = [k for k in keys if k not in spare]
        if spare:
            self.carry(player, {k: (self.pieces[k], self._edge_piece(
                player, STAND_IN, False, self.pieces[k].x)) for k in spare}, spare[-1],
                on_land=lambda: None)
        if not keys:
            return
        moves = {}
        for i, key in enumerate(keys):
            piece = self.pieces[key]
            top = self._deck_top(piece.face_up, piece.card)
            moves[key] = (piece, top.moved(top.x + 1.5 * i, top.y - 1.0 * i, z=top.z + i))

        def land() -> None:
            self.deck += len(keys)

        self.carry(player, moves, keys[-1], on_land=land)

    def from_deck(self, player: str, key: str, end: Piece, stand_in: bool = False) -> None:
        """A marker from the deck's top (a stand-in from the player's edge once it is
        empty: the rulebook allows any external marker then)."""
        if self.deck > 0 and not stand_in:
            self.fly(player, key, self._deck_top(), end, on_lift=self._took_from_deck)
        else:
            end = replace(end, card=STAND_IN)
            self.fly(player, key, self._edge_piece(player, STAND_IN, False, end.x), end)

    def away(self, player: str, key: str, to_discard: bool, after: Game,
             shuffled: bool = False) -> None:
        """A face-up card leaves its place: to the discard, the deck (`shuffled` in: a
        revealed secret, whose place a deck of unknown order forgets), or a hand."""
        piece = self.pieces[key]
        place = "deck" if shuffled else after.table.where(piece.card) if after.table else None
        if to_discard:
            end = self.geo.discard_pose(piece.card, player, len(self.discard))

            def land() -> None:
                self.discard.append((piece.card, player))
        elif place == "deck":
            end = self._deck_top(True, piece.card)

            def land() -> None:
                self.deck += 1
        else:
            holder = place[5:] if place and place.startswith("hand:") else player
            end = self._edge_piece(holder, piece.card, True, piece.x)

            def land() -> None:
                pass
        self.fly(player, key, piece, end, on_land=land)

    # --- rows -------------------------------------------------------------------------
    def place_new_minions(self, view: TableView) -> None:
        """Give each minion new to the table a free place: right of the others if it can."""
        for player, side in view.sides.items():
            own = self.slots[player]
            for minion in side.minions:
                if minion.id in own:
                    continue
                taken = set(own.values())
                right = max(taken) + 1 if taken else 0
                free = [s for s in range(5) if s not in taken]
                own[minion.id] = right if right < 5 else (free[0] if free else len(own))

    def move_group(self, player: str, group: str, target: dict[str, Piece]) -> None:
        keys = [k for k, p in self.pieces.items() if p.group == group and k in target]
        if not keys or all(self.pieces[k].near(target[k]) for k in keys):
            return
        grip = next((k for k in keys if self.pieces[k].face_up and k == f"c:{group}"),
                    max(keys, key=lambda k: self.pieces[k].z))
        self.carry(player, {k: (self.pieces[k], target[k]) for k in keys}, grip)
