"""How each event of a log is played on the table, card by card (docs/table.md).

`Players.event` plays one event: first what the event itself shows (a card from a hand laid
on the table, a spell shown face up, an attacker slid into its attack zone, a hero card
turned, a secret turned over, cards turned over from the deck), then every other difference
between the table and the rules' view after the event, one card or one group at a time,
each carried by its owner's hand: the dead to the discard in the rules' order with their
markers to the deck's bottom, markers from the deck's top, the spell to the discard,
draws to a player's edge; then the rows are tidied and the attacker slid back.
"""

from __future__ import annotations

from dataclasses import replace

from cards import BACK
from simulator.game_motion import PLAYERS, Stage
from simulator.game_table import Piece, with_attacker
from tracker.camera.live import PHONE_EVENTS
from tracker.camera.view import TableView
from tracker.rules.engine import Game
from tracker.rules.events import Attack, Event, HeroPower, Mulligan, Play, SecretRevealed
from tracker.rules.table import EXTERNAL

HERO_TILT = 45.0  # degrees a hero card is turned while its hero attacks (docs/table.md)


class Players(Stage):
    """The stage with two people playing the log's events on it."""

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
        # from the player's hand, whatever the ledger guessed (a card it thought was in the
        # deck or another hand swaps places with one of this hand); from the discard if there
        start, lift = self._source(card, player, place if place == "discard" else None, end.x)
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
        """The attacker's minion slid into its attack zone (back once the attack is
        marked), or its hero card tilted (turned upright or sideways again by `_settle`)."""
        hero = self.pieces.get(f"hero:{attacker}")
        if hero is not None:
            self.fly(attacker, f"hero:{attacker}", hero, hero.moved(hero.x, hero.y,
                                                                     hero.rot + HERO_TILT))
            self.wait(float(self.rng.uniform(0.3, 0.7)))
            return None
        keys = [k for k, p in self.pieces.items() if p.group == attacker]
        if not keys:
            return None
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
        for group in sorted(gone):
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
                self.from_deck(end.owner, key, end, _marker(after, key) == EXTERNAL)
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
        self.pieces = {k: self.pieces[k] if k in self.pieces and self.pieces[k].near(p, 2.0, 3.0)
                       else p for k, p in target.items()}
        self.snaps += abs(self.deck - view.deck) + ([c for c, _ in self.discard] != final)
        owners = dict(self.discard)
        self.discard = [(c, owners.get(c, before.active)) for c in final]
        self.deck = view.deck


def _marker(game: Game, key: str) -> str | None:
    """The rules' ledger slot of a face-down marker by its key (`d:7H:0`, `a:p1:2` …): the
    card it is, None where unseen, EXTERNAL for a stand-in."""
    kind, owner, index = key.split(":")
    slots: list = []
    if kind in "dbt":
        minion = next((m for side in game.sides.values() for m in side.minions
                       if m.id == owner), None)
        slots = {"d": minion.damage, "b": minion.buffs, "t": minion.stack}[kind] if minion else []
    elif kind == "a":
        slots = game.sides[owner].armor
    elif kind == "w" and game.sides[owner].weapon:
        slots = game.sides[owner].weapon.durability
    return slots[int(index)] if int(index) < len(slots) else None
