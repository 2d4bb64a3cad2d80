"""How the players move the cards between two views of the table, frame by frame.

`Stage` holds the physical table (the pieces of `vision.synth.game_table`, the deck's
count, the discard pile) and the players' arms. `Stage.event` plays one event of the log:
what the event itself shows first (a card from the hand laid on the table, a spell shown
face up, an attacker slid into its attack zone, a hero card turned, a secret turned over,
cards turned over from the deck), then every other difference between the table and the
rules' view after the event, one card or one group at a time, each carried by its owner's
hand: minions that died to the discard with their markers to the deck's bottom, markers
from the deck's top, spells to the discard, draws to a player's edge; then the rows are
tidied and the attacker slid back. Each frame goes to `sink(n, still, moving, hands)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from cards import BACK, DECK
from tracker.engine import Game
from tracker.events import Attack, Event, HeroPower, Mulligan, Play, SecretRevealed
from tracker.live import PHONE_EVENTS
from tracker.view import TableView
from vision.synth.game_table import Geometry, Piece, with_attacker
from vision.synth.hands import SKIN_TONES, Hand

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
            self.pieces.update({k: b for k, (_, b) in moves.items()})
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
        """Face-down cards (or one face-up) back under the deck, taken together."""
        moves = {}
        for i, key in enumerate(keys):
            piece = self.pieces[key]
            top = self._deck_top(piece.face_up, piece.card)
            moves[key] = (piece, top.moved(top.x + 1.5 * i, top.y - 1.0 * i, z=top.z + i))

        def land() -> None:
            self.deck += len(keys)

        self.carry(player, moves, keys[-1], on_land=land)

    def from_deck(self, player: str, key: str, end: Piece) -> None:
        """A marker from the deck's top (a stand-in from the player's edge once it is
        empty: the rulebook allows any external marker then)."""
        if self.deck > 0:
            self.fly(player, key, self._deck_top(), end, on_lift=self._took_from_deck)
        else:
            self.fly(player, key, self._edge_piece(player, BACK, False, end.x), end)

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

    # --- one event ---------------------------------------------------------------------
    def event(self, event: Event, before: Game, after: Game, view: TableView
              ) -> tuple[int, int | None]:
        """Play one event; (the frame at which the table shows it complete, the frame of
        the phone's input or None)."""
        self.landed = None
        start, phone = self.frame, None
        if event.type in PHONE_EVENTS:
            self.wait(float(self.rng.uniform(0.3, 0.9)))
            phone = self.frame
        attacker = None
        if isinstance(event, Mulligan) and before.table and after.table:
            self.set_aside[event.player] += (len(after.table.set_aside)
                                             - len(before.table.set_aside))
        if isinstance(event, Play):
            self._play(event, before, after, view)
        elif isinstance(event, Attack):
            attacker = self._slide_in(event.attacker)
        elif isinstance(event, HeroPower):
            self._power(event, before, view)
        elif isinstance(event, SecretRevealed):
            self._secret(event, before)
        self._settle(event, before, after, view, attacker)
        done = max(x for x in (self.landed, phone, start) if x is not None)
        self.leave_all()
        first = self.frame
        self.wait(float(self.rng.uniform(0.5, 1.0)))
        self.settled = (first, self.frame - 1)  # still, no hand over the table
        return done, phone

    def _play(self, event: Play, before: Game, after: Game, view: TableView) -> None:
        card, player = event.card, event.player
        place = before.table.where(card) if before.table else None
        if place and place.startswith("play:"):
            return  # already on the table (an illegal replay): nothing moves
        self.place_new_minions(view)
        target = self.geo.arrange(view, self.slots)
        key, end = f"c:{card}", target.get(f"c:{card}")
        secrets = (before.sides[player].secrets if before.table else [])
        if card in after.sides[player].secrets and card not in secrets:
            key = f"s:{player}:{len(secrets)}"
            end = target.get(key)
            if end is not None:
                self.fly(player, key, self._edge_piece(player, card, False, end.x), end)
            return
        if end is not None and end.group is None and before.table:  # a weapon
            old = before.sides[player].weapon
            markers = [k for k in self.pieces if k.startswith(f"w:{player}:")]
            if markers:
                self.to_deck(player, markers)
            if old is not None and old.card and f"c:{old.card}" in self.pieces:
                self.away(player, f"c:{old.card}", True, after)
        if end is None or end.group not in (None, card):  # a spell (maybe a buff's)
            spot = self._reveal_x(event, target)
            x, y = self.geo.reveal_spot(player, spot, card)
            end = Piece(card, True, float(x), float(y), self.geo.upright(player), 150.0,
                        owner=player)
        start, lift = self._source(card, player, place, end.x)
        self.fly(player, key, start, end, on_lift=lift)
        if end.z == 150.0:  # a spell: shown before it resolves
            self.wait(float(self.rng.uniform(0.6, 1.1)))

    def _reveal_x(self, event: Play, target: dict[str, Piece]) -> float | None:
        for ident in event.targets:
            piece = next((p for p in self.pieces.values() if p.group == ident), None)
            if piece is not None:
                return piece.x
        return None

    def _slide_in(self, attacker: str) -> str | None:
        keys = [k for k, p in self.pieces.items() if p.group == attacker]
        if not keys:
            return None  # a hero attacks: nothing slides
        owner = self.pieces[keys[0]].owner
        dx, dy = self.geo.attack_shift(owner)
        target = {k: self.pieces[k].moved(self.pieces[k].x + dx, self.pieces[k].y + dy)
                  for k in keys}
        self.move_group(owner, attacker, target)
        self.wait(float(self.rng.uniform(0.3, 0.7)))
        return attacker

    def _power(self, event: HeroPower, before: Game, view: TableView) -> None:
        player = event.player
        hero = self.pieces.get(f"hero:{player}")
        turned = self.geo.arrange(view)[f"hero:{player}"]
        if hero is not None and not hero.near(turned):
            self.fly(player, f"hero:{player}", hero, turned)
        shown = self._turned_over(event, before, view)
        if not shown:
            return
        for k, card in enumerate(shown):
            x, y = self.geo.turned_over(k)
            end = Piece(card, True, float(x), float(y), self.geo.upright(player),
                        160.0 + k, owner=player)
            self.fly(player, f"c:{card}", self._deck_top(True, card), end,
                     on_lift=self._took_from_deck)
        self.wait(float(self.rng.uniform(0.5, 0.9)))
        kept = {m.card for m in view.sides[player].minions if m.card}
        back = [f"c:{c}" for c in shown if c not in kept]
        if back:
            self.to_deck(player, back)

    @staticmethod
    def _turned_over(event: HeroPower, before: Game, view: TableView) -> list[str]:
        """The cards a power turned over from the deck: the event's list, or, with the
        deck's order known, the top cards down to the totem that came into play."""
        if event.revealed:
            return list(event.revealed)
        if before.table is None:
            return []
        deck = list(before.table.deck)
        for minion in view.sides[event.player].minions:
            if minion.card and before.table.where(minion.card) == "deck":
                return deck[:deck.index(minion.card) + 1]
        return []

    def _secret(self, event: SecretRevealed, before: Game) -> None:
        player, card = event.player, event.card
        secrets = before.sides[player].secrets if before.table else []
        x, y = self.geo.reveal_spot(player, None, card)
        end = Piece(card, True, float(x), float(y), self.geo.upright(player), 150.0,
                    owner=player)
        key = f"s:{player}:{len(secrets) - 1}"
        if card in secrets and key in self.pieces:
            start = replace(self.pieces.pop(key), card=card)
            self.fly(player, f"c:{card}", start, end)
        else:
            self.fly(player, f"c:{card}", self._edge_piece(player, card, True, x), end)
        self.wait(float(self.rng.uniform(0.6, 1.0)))

    # --- everything else the view says -------------------------------------------------------
    def _settle(self, event: Event, before: Game, after: Game, view: TableView,
                attacker: str | None) -> None:
        geo = self.geo
        final = self.ids.resolve(view.discard)
        alive = {m.id for side in view.sides.values() for m in side.minions}
        staged = with_attacker(view, attacker if attacker in alive else None)

        on_pile = [c for c, _ in self.discard]
        new_on_pile = [c for c in final if c not in on_pile]
        own = f"c:{event.card}" if isinstance(event, Play | SecretRevealed) else None
        staying = set(geo.arrange(staged))  # the keys that remain, wherever they lie

        def order(card: str) -> int:
            return final.index(card) if card in new_on_pile else len(final)

        # what leaves, in the order the discard pile says: a minion that died (its markers
        # to the deck's bottom first), a weapon, a card from a hand; the event's own spell
        # waits until what it did is marked
        gone = {p.group for p in self.pieces.values() if p.group and p.group not in alive}
        departures: list[tuple[int, str, str]] = []
        for group in gone:
            face = self.pieces.get(f"c:{group}")
            departures.append((order(face.card) if face else -1, "group", group))
        for key, piece in self.pieces.items():
            if (piece.face_up and piece.group not in gone and key not in staying
                    and key != own):
                departures.append((order(piece.card), "card", key))
        departures += [(order(c), "off", c) for c in new_on_pile if f"c:{c}" not in self.pieces]
        for _, kind, what in sorted(departures, key=lambda d: d[0]):
            if kind == "group":
                self._remove_minion(what, final, after)
            elif kind == "card":
                self.away(self.pieces[what].owner, what, self.pieces[what].card in new_on_pile,
                          after)
            else:
                self._discard_from_off(what, before)
        self.place_new_minions(view)
        target = geo.arrange(staged, self.slots)
        # face-down cards that leave, a place at a time
        leaving: dict[str, list[str]] = {}
        for key, piece in self.pieces.items():
            if key not in target and not piece.face_up:
                leaving.setdefault(key.rsplit(":", 1)[0], []).append(key)
        for keys in leaving.values():
            self.to_deck(self.pieces[keys[0]].owner, keys)
        # face-down cards that come: markers from the deck's top one by one, secrets
        for key in sorted((k for k, p in target.items() if k not in self.pieces
                           and not p.face_up), key=lambda k: (k[0] == "t", k)):
            end = target[key]
            if key.startswith("s:"):
                self.fly(end.owner, key, self._edge_piece(end.owner, BACK, False, end.x), end)
            else:
                self.from_deck(end.owner, key, end)
        if own in self.pieces and own not in target:  # the spell, once resolved
            self.away(self.pieces[own].owner, own, self.pieces[own].card in new_on_pile, after,
                      shuffled=isinstance(event, SecretRevealed))
        # face-up cards that come (a totem from the deck, a card from a hand)
        for key, end in target.items():
            if key not in self.pieces and end.face_up and not key.startswith("hero:"):
                place = before.table.where(end.card) if before.table else None
                start, lift = self._source(end.card, end.owner, place, end.x)
                self.fly(end.owner, key, start, end, on_lift=lift)
        # cards that moved: a buff spell under its minion, a totem to its row, a hero card
        for key, end in target.items():
            piece = self.pieces.get(key)
            if piece is not None and not piece.near(end):
                self.fly(end.owner, key, piece, end)
        self._deck_changes(event, before, after, view)
        # the rows tidied, left to right as their owners see them; the attacker back
        packed = {p: {m.id: i for i, m in enumerate(side.minions)}
                  for p, side in view.sides.items()}
        tidy = geo.arrange(staged, packed)
        for player, side in view.sides.items():
            for minion in side.minions:
                self.move_group(player, minion.id, tidy)
        self.slots = packed
        if staged is not view:
            rest = geo.arrange(view, packed)
            owner = next(p for p, side in view.sides.items() if side.minion(attacker))
            self.move_group(owner, attacker, rest)
        self._snap(view, final, before)

    def _remove_minion(self, group: str, final: list[str], after: Game) -> None:
        """A minion that left play: its markers to the deck's bottom, then its card and the
        spells under it to the discard (or a hand)."""
        keys = [k for k, p in self.pieces.items() if p.group == group]
        owner = self.pieces[keys[0]].owner
        down = [k for k in keys if not self.pieces[k].face_up]
        if down:
            self.to_deck(owner, down)
        up = [k for k in keys if k in self.pieces]
        for key in sorted(up, key=lambda k: final.index(self.pieces[k].card)
                          if self.pieces[k].card in final else len(final)):
            card = self.pieces[key].card
            self.away(owner, key, card in final and card not in dict(self.discard), after)
        self.slots[owner].pop(group, None)

    def _discard_from_off(self, card: str, before: Game) -> None:
        """A card put on the discard from off the table (a hand's overflow)."""
        holder = before.active if before.table else "p1"
        place = before.table.where(card) if before.table else None
        if place and place.startswith("hand:"):
            holder = place[5:]
        start, lift = self._source(card, holder, place, self.geo.centre("discard")[0])
        end = self.geo.discard_pose(card, holder, len(self.discard))
        self.fly(holder, f"c:{card}", start, end, on_lift=lift,
                 on_land=lambda: self.discard.append((card, holder)))

    def _deck_changes(self, event: Event, before: Game, after: Game, view: TableView) -> None:
        """Draws (the deck's top to a player's edge) and cards shuffled back in."""
        if before.table is not None and before.phase == "mulligan" and after.phase != "mulligan":
            for player, count in self.set_aside.items():
                for i in range(count):
                    self.fly(player, f"r:{i}", self._edge_piece(player, BACK, False, 300.0),
                             self._deck_top(), on_land=self._put_in_deck)
            if any(self.set_aside.values()):
                self._shuffle("p1")
            self.set_aside = {p: 0 for p in PLAYERS}
        missing = self.deck - view.deck
        if missing <= 0:
            return
        if isinstance(event, Mulligan):
            takers = [event.player] * missing
        else:
            takers = []
            for player in PLAYERS:
                was = len(before.sides[player].hand) if before.table else 0
                grew = len(after.sides[player].hand) - was
                if isinstance(event, Play) and event.player == player:
                    grew += 1
                takers += [player] * max(0, grew)
            takers = sorted(takers[:missing], key=lambda p: p != after.active)
        for i, player in enumerate(takers):
            end = self._edge_piece(player, BACK, False, 250.0 + 400.0 * (player == "p2"))
            self.fly(player, f"draw:{i}", self._deck_top(), end,
                     on_lift=self._took_from_deck, on_land=lambda: None)

    def _shuffle(self, player: str) -> None:
        """A hand squares and shuffles the deck for a moment."""
        centre = self.geo.deck_top(self.deck).xy
        for _ in range(3):
            self.reach(player, centre + self.rng.normal(0, 12, 2))

    def _snap(self, view: TableView, final: list[str], before: Game) -> None:
        """The table exactly as the view says (what the moves above did not reach)."""
        target = self.geo.arrange(view, self.slots)
        self.snaps += sum(1 for k, p in target.items()
                          if k not in self.pieces or not self.pieces[k].near(p, 2.0, 3.0))
        self.snaps += sum(1 for k in self.pieces if k not in target)
        self.pieces = target
        self.snaps += abs(self.deck - view.deck) + ([c for c, _ in self.discard] != final)
        owners = dict(self.discard)
        self.discard = [(c, owners.get(c, before.active)) for c in final]
        self.deck = view.deck
