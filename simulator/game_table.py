"""Where each card of a Hearthtop game lies on the table, in table millimetres.

`Geometry.arrange(view)` turns the rules' `tracker.camera.view.TableView` into the physical
cards of the conventions in `docs/table.md`: each minion in its owner's row (slots left to
right as its owner sees them), its damage markers sideways under it, +1/+1 markers upright
under it peeking out towards its owner, buff spells face up under it peeking out towards
the opponent, a token as a stack of face-down cards; the weapon and its durability, armor
and secrets beside the hero card; the shared deck and discard piles. Every card has a key
that stays the same while it lies in the same role (`c:7H` for a face-up card, whatever
its role; `d:7H:0` for the first damage marker under 7H …), so that an animation can
match the table before an event with the table after it. Small offsets of a player's
untidiness come from the key, so a card that does not move does not jiggle.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np

from calibration import Layout
from cards import BACK
from tracker.camera.view import MinionView, TableView
from tracker.rules.table import MAX_MINIONS

# offsets (mm, along the owner's axis towards them) of the k-th sideways marker under a
# card: alternately above and below, so that their ends make a staircase a camera can count
SIDEWAYS_STEPS = (-5.0, 5.0, -14.0, 14.0, -22.0, 22.0, -9.0, 9.0, -18.0, 18.0)
BUFF_STEP, BUFF_FIRST = 8.0, 12.0  # upright markers peek out towards the owner
SPELL_STEP, SPELL_FIRST = 8.0, 17.0  # face-up buff spells peek out towards the opponent
ARMOR_STEP = 10.0
SECRET_STEP = 26.0
DISCARD_SHOWN = 4  # the top cards of the discard pile that are drawn (the rest are hidden)


@dataclass(frozen=True)
class Piece:
    """One physical card on (or over) the table. `card` is its identity (BACK for a marker
    whose face nobody sees, `hero:p1` for a hero card); `group` the minion it belongs to
    (its markers move with it)."""

    card: str
    face_up: bool
    x: float
    y: float
    rot: float
    z: float
    group: str | None = None
    owner: str = "p1"

    @property
    def xy(self) -> np.ndarray:
        return np.array([self.x, self.y])

    def moved(self, x: float, y: float, rot: float | None = None, **changes) -> Piece:
        return replace(self, x=float(x), y=float(y),
                       rot=float(self.rot if rot is None else rot), **changes)

    def near(self, other: Piece, mm: float = 0.5, deg: float = 0.5) -> bool:
        turn = (self.rot - other.rot + 180.0) % 360.0 - 180.0
        return (abs(self.x - other.x) <= mm and abs(self.y - other.y) <= mm
                and abs(turn) <= deg and self.face_up == other.face_up)


class Geometry:
    """The default (or any) zone layout, turned into card poses for one game."""

    def __init__(self, layout: Layout, card_size: tuple[float, float], seed: int,
                 untidy: dict[str, float] | None = None) -> None:
        self.layout = layout
        self.card_w, self.card_h = card_size
        self.width, self.height = (float(v) for v in layout.table_mm)
        self.seed = seed
        self.untidy = untidy or {"p1": 2.0, "p2": 2.0}  # mm and degrees of a player's mess
        self._unit: dict[str, tuple[float, float, float]] = {}
        self.boxes = {name: (float(o[:, 0].min()), float(o[:, 1].min()),
                             float(o[:, 0].max()), float(o[:, 1].max()))
                      for name, o in layout.zones.items()}

    # --- frames of reference ----------------------------------------------------------
    def jitter(self, key: str, mm: float, deg: float) -> tuple[float, float, float]:
        """Small offsets fixed by the key: the same card in the same role lies the same."""
        unit = self._unit.get(key)
        if unit is None:
            rng = np.random.default_rng([self.seed, zlib.crc32(key.encode())])
            unit = self._unit[key] = tuple(float(v) for v in rng.normal(0.0, 1.0, 3))
        return unit[0] * mm, unit[1] * mm, unit[2] * deg

    @staticmethod
    def axes(player: str) -> tuple[np.ndarray, np.ndarray]:
        """(u, v): the owner's right and the direction towards the owner's seat."""
        if player == "p1":
            return np.array([1.0, 0.0]), np.array([0.0, 1.0])
        return np.array([-1.0, 0.0]), np.array([0.0, -1.0])

    @staticmethod
    def upright(player: str) -> float:
        """The rotation of a card laid upright by `player` (its top away from them)."""
        return 0.0 if player == "p1" else 180.0

    def centre(self, zone: str) -> np.ndarray:
        x0, y0, x1, y1 = self.boxes[zone]
        return np.array([(x0 + x1) / 2, (y0 + y1) / 2])

    def at(self, player: str, zone: str, across: float, dv: float = 0.0) -> np.ndarray:
        """A point of a player's zone: `across` from the owner's left (0) to right (1), `dv`
        mm from the zone's middle towards the owner."""
        x0, _, x1, _ = self.boxes[f"{player}.{zone}"]
        u, v = self.axes(player)
        return self.centre(f"{player}.{zone}") + u * (across - 0.5) * (x1 - x0) + v * dv

    def attack_shift(self, player: str) -> np.ndarray:
        """From a minion's place in its row to the same place in its attack zone."""
        _, v = self.axes(player)
        delta = self.centre(f"{player}.attack") - self.centre(f"{player}.minions")
        return v * float(delta @ v)

    def edge(self, player: str, x: float) -> np.ndarray:
        """A point just beyond the player's edge of the table (a held card, a hand)."""
        return np.array([float(np.clip(x, 0.0, self.width)),
                         self.height + 110.0 if player == "p1" else -110.0])

    def grip(self, piece: Piece, player: str) -> np.ndarray:
        """Where the fingertips of `player` hold a card: on its half nearer to them."""
        return piece.xy + self.axes(player)[1] * 0.28 * self.card_h

    # --- the table of a view ------------------------------------------------------------
    def arrange(self, view: TableView, slots: dict[str, dict[str, int]] | None = None
                ) -> dict[str, Piece]:
        """Every card of the view but the deck and discard piles, by key. `slots` gives a
        minion's place in its row (0 at its owner's left); by default they are packed from
        the left in the view's order."""
        pieces: dict[str, Piece] = {}
        for player, side in view.sides.items():
            own = (slots or {}).get(player, {})
            places = [own.get(minion.id, i) for i, minion in enumerate(side.minions)]
            # a sixth minion (illegal, yet on the table) is squeezed into the row
            row = max([MAX_MINIONS, *(place + 1 for place in places)])
            for minion, place in zip(side.minions, places, strict=True):
                self._minion(pieces, player, minion, place, row)
            self._weapon(pieces, player, side.weapon, side.durability)
            self._fan(pieces, player, "armor", "a", side.armor, ARMOR_STEP, 60.0)
            self._fan(pieces, player, "secrets", "s", side.secrets, SECRET_STEP, 70.0)
            dx, dy, dr = self.jitter(f"hero:{player}", 2.0, 2.0)
            x, y = self.centre(f"{player}.hero") + np.array([dx, dy])
            rot = self.upright(player) + dr + (90.0 if side.power_used else 0.0)
            pieces[f"hero:{player}"] = Piece(f"hero:{player}", True, float(x), float(y), rot,
                                             -0.5, owner=player)
        return pieces

    def grip_key(self, minion: MinionView) -> str:
        """The card a hand holds to move a minion: its face, or its stack's top."""
        return f"c:{minion.card}" if minion.card else f"t:{minion.id}:{max(0, minion.stack - 1)}"

    def _minion(self, out: dict[str, Piece], player: str, m: MinionView, slot: int,
                row: int) -> None:
        mess = self.untidy[player]
        u, v = self.axes(player)
        dx, dy, dr = self.jitter(f"m:{m.id}", mess, mess)
        centre = self.at(player, "minions", (slot + 0.5) / row) + np.array([dx, dy])
        if m.attacking:
            centre = centre + self.attack_shift(player)
        rot = self.upright(player) + dr
        z0 = 10.0 + 2.0 * slot + (0.0 if player == "p1" else 20.0)

        def put(key: str, card: str, face_up: bool, du: float, dv: float, turn: float,
                z: float) -> None:
            jx, jy, jr = self.jitter(key, 0.25 * mess + 0.5, 0.8 * mess + 0.5)
            x, y = centre + u * (du + jx) + v * (dv + jy)
            out[key] = Piece(card, face_up, float(x), float(y), rot + turn + jr, z, m.id,
                             player)

        for k in range(m.damage):
            put(f"d:{m.id}:{k}", BACK, False, 2.5 * (-1) ** k,
                SIDEWAYS_STEPS[k % len(SIDEWAYS_STEPS)], 90.0, z0 + 0.1 + 0.01 * k)
        for k in range(m.buffs):
            put(f"b:{m.id}:{k}", BACK, False, 0.0, BUFF_FIRST + BUFF_STEP * k, 0.0,
                z0 + 0.3 + 0.01 * k)
        for k, card in enumerate(m.spells):
            put(f"c:{card}", card, True, 0.0, -(SPELL_FIRST + SPELL_STEP * k), 0.0,
                z0 + 0.5 + 0.01 * k)
        for k in range(m.stack):
            put(f"t:{m.id}:{k}", BACK, False, 0.5 * k, -0.7 * k, 0.0, z0 + 0.7 + 0.01 * k)
        if m.card:
            out[f"c:{m.card}"] = Piece(m.card, True, float(centre[0]), float(centre[1]), rot,
                                       z0 + 0.9, m.id, player)

    def _weapon(self, out: dict[str, Piece], player: str, card: str | None,
                durability: int) -> None:
        mess = self.untidy[player]
        u, v = self.axes(player)
        dx, dy, dr = self.jitter(f"weapon:{player}", mess, mess)
        centre = self.centre(f"{player}.weapon") + np.array([dx, dy])
        rot = self.upright(player) + dr
        for k in range(durability):
            key = f"w:{player}:{k}"
            jx, jy, jr = self.jitter(key, 0.5, mess)
            x, y = centre + u * (2.5 * (-1) ** k + jx) + v * (SIDEWAYS_STEPS[k] + jy)
            out[key] = Piece(BACK, False, float(x), float(y), rot + 90.0 + jr, 50.0 + 0.01 * k,
                             owner=player)
        if card:
            out[f"c:{card}"] = Piece(card, True, float(centre[0]), float(centre[1]), rot, 50.9,
                                     owner=player)

    def _fan(self, out: dict[str, Piece], player: str, zone: str, prefix: str, count: int,
             step: float, z: float) -> None:
        """Face-down cards side by side in a zone, from its edge nearest the hero card."""
        x0, _, x1, _ = self.boxes[f"{player}.{zone}"]
        hero_x = self.centre(f"{player}.hero")[0]
        start, sign = (x0, 1.0) if abs(hero_x - x0) < abs(hero_x - x1) else (x1, -1.0)
        mess = self.untidy[player]
        y = self.centre(f"{player}.{zone}")[1]
        for k in range(count):
            key = f"{prefix}:{player}:{k}"
            jx, jy, jr = self.jitter(key, 0.6 * mess, mess)
            x = start + sign * (self.card_w / 2 + 5.0 + step * k)
            out[key] = Piece(BACK, False, float(x + jx), float(y + jy),
                             self.upright(player) + jr, z + 0.01 * k, owner=player)

    # --- the shared piles -----------------------------------------------------------------
    def deck_pile(self, count: int) -> list[Piece]:
        """The draw deck: a neat face-down pile, a few of its cards drawn (edges showing)."""
        if count <= 0:
            return []
        shown = min(count, 2 + count // 7)
        spread = min(5.0, 0.1 * count)  # how far the top has shifted from the bottom, mm
        cx, cy = self.centre("deck")
        _, _, base = self.jitter("deck", 0.0, 1.5)
        pile = []
        for k in range(shown):
            f = k / max(1, shown - 1)
            jx, jy, jr = self.jitter(f"deck:{k}", 0.4, 1.2)
            pile.append(Piece(BACK, False, cx + jx - 0.6 * spread * f, cy + jy - spread * f,
                              base + jr, 80.0 + 0.01 * k, owner="p1"))
        return pile

    def deck_top(self, count: int) -> Piece:
        pile = self.deck_pile(max(1, count))
        return replace(pile[-1], z=200.0)

    def discard_pose(self, card: str, owner: str, index: int) -> Piece:
        """A card on the discard pile: dropped with some mess, each the way its player
        faced; `index` from the bottom."""
        dx, dy, dr = self.jitter(f"x:{card}", 5.0, 9.0)
        cx, cy = self.centre("discard")
        return Piece(card, True, cx + dx, cy + dy, self.upright(owner) + dr, 90.0 + 0.01 * index,
                     owner=owner)

    def discard_pile(self, cards: list[tuple[str, str]]) -> list[Piece]:
        start = max(0, len(cards) - DISCARD_SHOWN)
        return [self.discard_pose(card, owner, i)
                for i, (card, owner) in enumerate(cards) if i >= start]

    # --- places cards pass through ---------------------------------------------------------
    def reveal_spot(self, player: str, x: float | None, key: str) -> np.ndarray:
        """Where a spell is shown: the caster's attack zone, in front of its target."""
        x0, _, x1, _ = self.boxes[f"{player}.attack"]
        dx, dy, _ = self.jitter(f"reveal:{key}", 8.0, 0.0)
        if x is None:
            x = x0 + (x1 - x0) * (0.5 + 0.25 * np.tanh(dx / 8.0))
        lo, hi = x0 + self.card_w / 2 + 4.0, x1 - self.card_w / 2 - 4.0
        y = self.centre(f"{player}.attack")[1] + 0.3 * dy
        return np.array([float(np.clip(x + dx, lo, hi)), float(y)])

    def turned_over(self, k: int) -> np.ndarray:
        """The k-th card turned over from the deck (Totemic Call): beside the deck."""
        x1, cy = self.boxes["deck"][2], self.centre("deck")[1]
        return np.array([x1 + self.card_w / 2 + 12.0 + 0.55 * self.card_w * k, cy])


def with_attacker(view: TableView, attacker: str | None) -> TableView:
    """The view with `attacker` slid into its attack zone (the `attacking` flag)."""
    if attacker is None:
        return view
    sides = {}
    for player, side in view.sides.items():
        minions = tuple(replace(m, attacking=True) if m.id == attacker else m
                        for m in side.minions)
        sides[player] = replace(side, minions=minions)
    return replace(view, sides=sides)
