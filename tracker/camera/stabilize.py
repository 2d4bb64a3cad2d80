"""From the cards seen frame by frame to stable views of the table.

Input: for each frame, the cards the camera found, each a `Sighting` in table millimetres
with its zone, and the zones where something moves (a hand, an arm): no pixels, the caller
converts with the calibration. Each physical card is a trail: matched from frame to frame
by position (a card surely named keeps to its own trail), its name a fading vote of the
frames it was seen in, so that a still card keeps its name through frames that read it
badly. A card is on the table once it has been seen lying still for `settle` frames where
nothing moves (a card in a hand moves with it); where a hand moves, no card comes or goes;
a card unseen where nothing moves is gone after a few frames (more if it lay there long: a
hand may have stopped over it). The view is stable once it has not changed for `hold`
frames of a still table, and only a stable view that differs from the last one is given to
the reconciler. What a stable view cannot show (a minion slid into its attack zone and
back, a spell shown) is kept from the frames between two stable views, as hints.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace

from cards import BACK, JOKER
from tracker.rules.cards import parse_card

from .view import TOKEN, UNNAMED, Hints, MinionView, SideView, TableView

UNKNOWN = "UNKNOWN"
HERO = "HERO"  # a hero's reference card, found by its outline (not one of the 53)
GUESS_CONFIDENCE = 0.8  # a guess this sure counts, as a part of a sure name …
GUESS_WEIGHT = 0.5  # … so that frames that name the card outvote it
# The Coin (the joker) leaves nothing but itself on the pile, where the recogniser guesses
# it right about 60 % of the frames at 0.5-0.8: the frames' votes make its name
JOKER_GUESS = 0.5
PLACED_GUESS = 0.5  # where only a weapon, or a spell shown, lies face up
SURE = 0.9  # a name this sure tells one card from another in the same place
SLIDE_MM = 150.0  # a card named so is followed this far (a minion slid along its row)
STILL_MM = 4.0  # a card that moves less between frames lies still (detection jitters)
VOTE_MEMORY = 0.95  # each frame's votes weigh this much less a frame later …
MOVED_MEMORY = 0.3  # … and this much less once it moved: it may be a card laid on another
# near the same place (the discard), which takes the name over in a frame or two
ESTABLISHED = 8  # frames seen lying still after which a card unseen may be covered …
COVERED = 8  # … by a hand that stopped over it: gone after this many quiet frames unseen
GONE = 2  # frames unseen where nothing moves after which any other card is gone
MARKER_REACH_MM = 35.0  # a face-down card this near a minion's centre is under it
STACK_MM = 25.0  # face-down cards this near one another are one token's stack
# secrets are fanned face down, each over part of the one before, and never slide: two
# found nearer than this in one frame are one card found twice, and one found farther
# than this from a secret is another card
SECRET_APART_MM = 12.0
CARD_SPAN_MM = 55.0  # a card laid nearer than this beside another in a fan covers part of it
ARRIVAL_FRAMES = 3  # names first read on the pile this close together came with one card
SPELL_MIN_MM = 8.0  # a buff spell under a minion peeks out this far at least (17 mm, drawn)
PLAYERS = ("p1", "p2")


@dataclass(frozen=True)
class Sighting:
    card: str  # a card id, JK, BACK or UNKNOWN
    confidence: float
    x: float  # the card's centre on the table, mm
    y: float
    zone: str | None  # the layout's zone there (p1.minions, deck …)
    sideways: bool = False
    # the likeliest name where `card` is UNKNOWN: the recogniser abstains on a card it
    # does not see whole (tucked under another, in a pile), yet is mostly right about it
    guess: str | None = None
    tilted: bool = False  # a hero card turned about 45°: its hero attacks (then not sideways)


@dataclass
class Trail:
    x: float
    y: float
    zone: str | None
    sideways: bool
    first: int
    last: int
    hits: int = 0
    # frames seen, where nothing moved, since it last moved (a card in a hand never is still)
    still_hits: int = 0
    named_since: int = 0  # the frame since which it has had its name
    votes: Counter = field(default_factory=Counter)
    card: str = UNKNOWN
    on_table: bool = False  # judged where no hand moved: frozen while one does
    tilted: bool = False  # a hero card turned for an attack, as last seen …
    tilted_still: int = 0  # … and the frames it was seen so where nothing moved

    def vote(self, frame: int, card: str, weight: float) -> None:
        for name in self.votes:
            self.votes[name] *= VOTE_MEMORY
        self.votes[card] += weight
        named = [(v, c) for c, v in self.votes.items() if c != UNKNOWN]
        leader = max(named)[1] if named else UNKNOWN
        if leader != self.card:
            self.card, self.named_since = leader, frame

    @property
    def face_up(self) -> bool:
        return self.card not in (BACK, UNKNOWN, HERO)


@dataclass
class Change:
    frame: int
    view: TableView
    hints: Hints


class Stabilizer:
    def __init__(self, *, hold: int = 3, settle: int = 2, confirm: int = 2,
                 patience: int = 45, reach_mm: float = 35.0) -> None:
        """`settle`: frames a card must lie still to be on the table; `hold`: frames the
        table must look the same to count; `patience`: frames an unseen card's trail is
        kept at most (to be found again where it was)."""
        self.hold, self.settle, self.confirm = hold, settle, confirm
        self.patience, self.reach = patience, reach_mm
        self.trails: list[Trail] = []
        self._pending: TableView | None = None  # the view of the last frame
        self._since = 0  # frames the confirmed trails have looked the same
        self._last_view = build_view([])  # the table starts empty
        self._attackers: dict[str, None] = {}
        self._shown: dict[str, None] = {}
        self._moving: frozenset[str] = frozenset()
        self._moved: dict[str | None, int] = {}  # zone: the last frame something moved there
        self._pile: dict[str, tuple[int, int]] = {}  # discard: name -> first, last frame named

    def update(self, frame: int, seen: list[Sighting],
               moving: frozenset[str] = frozenset()) -> Change | None:
        """Take one frame's sightings, and the zones where something moves (a hand, an
        arm): there, no card comes or goes until it is still again. A `Change` when a new
        stable view holds."""
        self._moving = moving
        self._moved.update(dict.fromkeys(moving, frame))
        self._match(frame, seen)
        self._forget(frame)
        self._note_hints(frame)
        for trail in self.trails:
            if trail.zone not in moving:
                trail.on_table = self._on_table(trail, frame)
        confirmed = [t for t in self.trails if t.on_table]
        self._note_pile(frame, confirmed)
        view = build_view(confirmed, self._laid)  # what the rules read: cards off the zones are not
        # a card unseen a while where nothing moves is gone or covered: wait and see
        doubtful = any(frame - t.last > GONE and _counts(t) and not self._under_secret(t, frame)
                       for t in confirmed)
        held = view == self._pending and not moving and not doubtful
        self._since = self._since + 1 if held else 0
        self._pending = view
        if self._since != self.hold:
            return None
        return self._change(frame, confirmed)

    @property
    def view(self) -> TableView:
        """The last stable view."""
        return self._last_view

    def unseen(self, frame: int, least: int = 4) -> float:
        """The share of the cards on the table not seen in `frame` (0 with fewer than
        `least` on it): most of them unseen at once is the table covered, not a hand."""
        lying = [t for t in self.trails if t.on_table]
        return sum(t.last != frame for t in lying) / len(lying) if len(lying) >= least else 0.0

    @property
    def still_for(self) -> int:
        """Frames the table has looked the same, with nothing moving."""
        return self._since

    def flush(self, frame: int) -> Change | None:
        """The table as it lies now, without waiting for it to hold: before a turn ends,
        what happened in it must be explained in it."""
        return self._change(frame, [t for t in self.trails if t.on_table])

    @property
    def _laid(self) -> dict[str, int]:
        return {card: first for card, (first, _) in self._pile.items()}

    def _note_pile(self, frame: int, confirmed: list[Trail]) -> None:
        """The frame each name came onto the discard pile: when its trail took it (a new
        trail is confirmed a few frames later). The pile's cards lie in nearly one place,
        and the corners of the lower ones are read now and then: which trail shows which
        name may flicker, but the name that came last is the top card's."""
        for trail in confirmed:
            if trail.zone == "discard" and trail.face_up:
                first, _ = self._pile.get(trail.card, (trail.named_since, frame))
                self._pile[trail.card] = (first, frame)
        self._pile = {card: seen for card, seen in self._pile.items()
                      if frame - seen[1] <= self.patience}  # shuffled back into the deck

    def _change(self, frame: int, confirmed: list[Trail]) -> Change | None:
        # a card in an attack zone (or a hero card tilted) is an attack or a spell being
        # resolved: its outcome (markers, a minion gone) is not on the table yet
        if any(frame - t.last <= GONE and (t.tilted or (t.zone or "").endswith(".attack"))
               for t in confirmed):
            return None
        view = build_view(confirmed, self._laid)
        if view == self._last_view and not self._attackers:
            return None  # an attack on a hero changes nothing the camera sees, but counts
        self._last_view = view
        shown = tuple(c for c in self._shown if c not in view.face_up())
        hints = Hints(attackers=tuple(self._attackers), revealed=shown)
        self._attackers, self._shown = {}, {}
        return Change(frame, view, hints)

    def _forget(self, frame: int) -> None:
        """Trails unseen too long go, and so does a trail whose card is seen elsewhere now
        (one physical card is in one place: it was picked up and laid there)."""
        here = {t.card for t in self.trails
                if t.last == frame and t.face_up and t.hits >= self.confirm}
        self.trails = [t for t in self.trails
                       if (frame - t.last <= self.patience or self._under_secret(t, frame))
                       and (t.last == frame or t.card not in here)]

    def _note_hints(self, frame: int) -> None:
        """What passes between two stable views: a card seen now in an attack zone (an
        attacker, a spell shown) or a hero card held tilted (its hero attacks), a card face
        up that was not in the last view."""
        known = self._last_view.face_up()
        for trail in self.trails:
            if trail.tilted_still >= self.settle and trail.last == frame:
                self._attackers[trail.zone.split(".", 1)[0]] = None  # a hero attacks
            if trail.last != frame or trail.hits < self.confirm or not (
                    trail.face_up or (trail.card == BACK and not trail.sideways)):
                continue
            # a minion slid forward and held there, or a spell shown (not a card carried
            # across the zone on its way to the discard); a token is a face-down stack
            if (trail.zone or "").endswith(".attack") and trail.still_hits >= self.settle:
                self._attackers[trail.card if trail.face_up else TOKEN] = None
            # a spell shown; the pile's lower cards, whose corners are read now and then,
            # were shown when they came (the pile's top is in the view)
            if trail.face_up and trail.card not in known and trail.zone not in (None, "discard"):
                self._shown[trail.card] = None

    def _on_table(self, trail: Trail, frame: int) -> bool:
        """Seen lying still for `settle` frames (a card in a hand moves with it, a card
        carried across a zone is seen still once or twice at most), and still seen, unless
        it lay there long enough to be taken as covered (a hand passing over it)."""
        if trail.hits < self.confirm or trail.still_hits < self.settle:
            return False
        if self._under_secret(trail, frame):
            return True
        unseen = frame - max(trail.last, self._moved.get(trail.zone, -1))
        # a card in an attack zone only passes through: unseen, it went back to its row
        settled = trail.still_hits >= ESTABLISHED and not (trail.zone or "").endswith(".attack")
        return unseen <= (COVERED if settled else GONE)

    def _under_secret(self, trail: Trail, frame: int) -> bool:
        """A secret on the table that a secret laid after it covers in part, now seen: the
        camera may not find the one under it, which is still there."""
        if not (trail.on_table and trail.card == BACK and _in_secrets(trail.zone)):
            return False
        return any(t.on_table and t.card == BACK and t.zone == trail.zone
                   and t.first > trail.first and frame - t.last <= GONE
                   and abs(t.x - trail.x) < CARD_SPAN_MM and abs(t.y - trail.y) < SECRET_APART_MM
                   for t in self.trails)

    def _match(self, frame: int, seen: list[Sighting]) -> None:
        """Each sighting to its trail: the trail of the card it names, where that card was
        slid along its row; else the nearest free trail within reach that names no other
        card (a card laid where another lay is another card), a secret's only where it
        lies; else a new trail."""
        free = set(range(len(self.trails)))
        secrets = [t for t in self.trails if t.on_table and t.card == BACK and _in_secrets(t.zone)]
        seen = _one_sighting_a_secret(seen, secrets)
        given = self._secrets_in_place(seen, free)
        for k, sight in enumerate(seen):
            if k in given:
                self._follow(self.trails[given[k]], frame, sight)
                continue
            name = _sure_name(sight)
            best = self._nearest(free, sight, SLIDE_MM, name) if name else None
            if best is None:
                reach = SECRET_APART_MM if _secret_back(sight) else self.reach
                best = self._nearest(free, sight, reach, None, unlike=name)
            if best is None:
                self.trails.append(Trail(sight.x, sight.y, sight.zone, sight.sideways,
                                         frame, frame, named_since=frame))
                best = len(self.trails) - 1
            else:
                free.discard(best)
            self._follow(self.trails[best], frame, sight)

    def _secrets_in_place(self, seen: list[Sighting], free: set[int]) -> dict[int, int]:
        """Secrets found where secrets lie, each to its trail, the nearest pairs first (one
        found at the edge of the card under another is nearer to the card above than to its
        own: taken in turn, it would take the other's trail). The trails given leave
        `free`."""
        pairs = sorted((math.dist((t.x, t.y), (sight.x, sight.y)), k, i)
                       for k, sight in enumerate(seen) if _secret_back(sight)
                       for i in free if (t := self.trails[i]).zone == sight.zone
                       and t.sideways == sight.sideways)
        given: dict[int, int] = {}
        for distance, k, i in pairs:
            if distance < SECRET_APART_MM and k not in given and i in free:
                given[k] = i
                free.discard(i)
        return given

    def _nearest(self, free: set[int], sight: Sighting, reach: float, card: str | None,
                 unlike: str | None = None) -> int | None:
        """The free trail nearest the sighting within `reach`: of `card` if given, and
        not of a face-up card other than `unlike` if that is given."""
        best, best_d = None, reach
        for i in free:
            trail = self.trails[i]
            if (card and trail.card != card) or trail.sideways != sight.sideways:
                continue
            if unlike and trail.face_up and trail.card != unlike:
                continue
            d = ((trail.x - sight.x) ** 2 + (trail.y - sight.y) ** 2) ** 0.5
            if d < best_d:
                best, best_d = i, d
        return best

    def _follow(self, trail: Trail, frame: int, sight: Sighting) -> None:
        moved = ((trail.x - sight.x) ** 2 + (trail.y - sight.y) ** 2) ** 0.5
        if trail.on_table and trail.card == BACK and _in_secrets(trail.zone):
            moved, sight = 0.0, replace(sight, x=trail.x, y=trail.y)  # a secret never slides
        if moved > STILL_MM:
            trail.still_hits = 0
            for name in trail.votes:
                trail.votes[name] *= MOVED_MEMORY
        if sight.zone not in self._moving:  # a card under a moving hand may yet be taken
            trail.still_hits += 1
        trail.x, trail.y, trail.zone, trail.last = sight.x, sight.y, sight.zone, frame
        trail.tilted = sight.tilted
        trail.tilted_still = trail.tilted_still + (sight.zone not in self._moving) \
            if sight.tilted else 0
        trail.hits += 1
        if moved > self.reach / 2:  # picked up and put down elsewhere: a fresh look
            trail.votes.clear()
        if sight.card != UNKNOWN:
            trail.vote(frame, sight.card, max(sight.confidence, 0.05))
        elif sight.guess and _holds_cards(sight.zone) and sight.confidence >= _guess_bar(sight):
            trail.vote(frame, sight.guess, GUESS_WEIGHT * sight.confidence)
        else:
            trail.vote(frame, UNKNOWN, max(sight.confidence, 0.05))


def _in_secrets(zone: str | None) -> bool:
    return (zone or "").endswith(".secrets")


def _secret_back(sight: Sighting) -> bool:
    """A face-down card in a secrets zone."""
    return _in_secrets(sight.zone) and BACK in (sight.card, sight.guess) \
        and sight.card in (BACK, UNKNOWN)


def _one_sighting_a_secret(seen: list[Sighting], secrets: list[Trail]) -> list[Sighting]:
    """The sightings less those of a secret found twice: nearer to another than secrets lie
    apart. Of the two, the one nearer a secret on the table is kept (it is that card),
    else the surer."""
    def nearest(sight: Sighting) -> float:
        return min((math.dist((t.x, t.y), (sight.x, sight.y)) for t in secrets
                    if t.zone == sight.zone), default=math.inf)

    kept: list[Sighting] = []
    for sight in sorted(seen, key=lambda s: (nearest(s) if _secret_back(s) else 0.0,
                                             -s.confidence)):
        if not (_secret_back(sight) and any(
                _secret_back(k) and k.zone == sight.zone
                and math.dist((k.x, k.y), (sight.x, sight.y)) < SECRET_APART_MM for k in kept)):
            kept.append(sight)
    return sorted(kept, key=lambda s: -s.confidence)


def _guess_bar(sight: Sighting) -> float:
    """How sure a guess must be to count: less for a joker on the discard pile, and for an
    upright card in a weapon zone (a weapon under its markers) or an attack zone (a spell
    shown, a minion slid): nothing else lies face up there."""
    if sight.guess == JOKER and sight.zone == "discard":
        return JOKER_GUESS
    if (sight.zone or "").endswith((".weapon", ".attack")) and not sight.sideways \
            and sight.guess != BACK:
        return PLACED_GUESS
    return GUESS_CONFIDENCE


def _sure_name(sight: Sighting) -> str | None:
    """The face-up card a sighting surely shows, or None; None on the discard too, where
    the cards under the top one show their corners and are named now and then."""
    if sight.zone == "discard":
        return None
    if sight.card not in (UNKNOWN, BACK) and sight.confidence >= SURE:
        return sight.card
    if sight.card == UNKNOWN and sight.guess not in (None, UNKNOWN, BACK) and \
            sight.confidence >= SURE and _holds_cards(sight.zone):
        return sight.guess
    return None


def _face_down(trail: Trail) -> bool:
    """A marker: read as a back, or a card turned sideways that is not named (a card lies
    sideways in a minion's place or by a weapon only as a marker; half hidden under the
    card it marks, the recogniser often abstains on it)."""
    return trail.card == BACK or (trail.sideways and trail.card == UNKNOWN)


def _counts(trail: Trail) -> bool:
    """A card the rules' view reads: named or face down, in a zone that holds cards."""
    return trail.card != UNKNOWN and _holds_cards(trail.zone)


def _holds_cards(zone: str | None) -> bool:
    """Where playing cards lie: a zone of the table, not a hero card's."""
    return zone is not None and not zone.endswith(".hero")


def _power_used(trails: list[Trail], player: str) -> bool | None:
    """The hero card turned sideways: the hero power is used. The hero card is not one of
    the 53: the camera finds it as HERO (`vision.hero`), and the one seen last (not tilted
    for an attack) tells; where it was not found, an unnamed card sideways in the hero's
    zone is it turned, and nothing else says it is not (None)."""
    zone = f"{player}.hero"
    heroes = [t for t in trails if t.zone == zone and t.card == HERO and not t.tilted]
    if heroes:
        return max(heroes, key=lambda t: (t.last, t.first)).sideways
    return True if any(t.zone == zone and t.sideways for t in trails) else None


def _is_minion_card(card: str) -> bool:
    return card not in (JOKER, UNKNOWN, BACK, HERO) and parse_card(card).is_minion


def _towards_owner(player: str) -> float:
    return 1.0 if player == "p1" else -1.0  # p1 sits at y = 600, p2 at y = 0


def _tucked_spell(trail: Trail, mine: list[Trail], player: str) -> bool:
    """A face-up card lying just beside a minion's card, under it: a spell's card (J to
    A, the joker), or one named as a minion, less surely than the card it peeks out from
    under towards the opponent (no minion lies so near another: a spell's strip misread)."""
    if not trail.zone.endswith(".minions"):
        return False
    minion_named = _is_minion_card(trail.card)
    return any(
        _is_minion_card(t.card) and t.card != trail.card and not t.sideways
        and t.zone == trail.zone
        and SPELL_MIN_MM < math.dist((t.x, t.y), (trail.x, trail.y)) < MARKER_REACH_MM
        and (not minion_named or ((trail.y - t.y) * _towards_owner(player) < 0
                                  and t.votes[t.card] > trail.votes[trail.card]))
        for t in mine)


def _buff_markers(mine: list[Trail], hosts: list[Trail], player: str) -> dict[int, Trail]:
    """Upright cards just under a better-seen minion card, peeking out towards its owner:
    +1/+1 markers, face down (a buff spell peeks out the other way, docs/table.md), whatever
    the recogniser made of the strip they show (nothing, or a guess at a face it cannot
    see, which would make a minion of it); by the id of each, the minion it lies under."""
    towards = _towards_owner(player)
    found: dict[int, Trail] = {}
    for t in mine:
        if not t.zone.endswith(".minions") or t.sideways or _face_down(t) or t.card == HERO:
            continue
        under = [h for h in hosts if h is not t and (t.y - h.y) * towards > 0
                 and SPELL_MIN_MM < math.dist((t.x, t.y), (h.x, h.y)) < MARKER_REACH_MM
                 and sum(h.votes.values()) > sum(t.votes.values())]
        if under:
            found[id(t)] = min(under, key=lambda h: math.dist((t.x, t.y), (h.x, h.y)))
    return found


def _spells_under(player: str, mine: list[Trail], placed: list[tuple[Trail, dict]]) -> None:
    """A face-up card tucked under a minion is a spell that buffs it. It shows a strip
    beyond the minion towards the opponent, often without its index: the recogniser names
    it, abstains on it (UNNAMED here: the spell was seen when it was shown) or reads the
    minion's name again. A strip towards the owner that it cannot name is a +1/+1 marker's
    back (`docs/table.md`)."""
    towards_owner = _towards_owner(player)
    minions = {id(t) for t, _ in placed}
    for t in mine:
        if not t.zone.endswith(".minions") or t.sideways or id(t) in minions or \
                _face_down(t) or t.card == HERO:
            continue
        near = [(math.dist((t.x, t.y), (m.x, m.y)), m, view) for m, view in placed]
        if not near:
            continue
        d, minion, view = min(near, key=lambda n: n[0])
        if not SPELL_MIN_MM < d < MARKER_REACH_MM:
            continue
        if t.card in (UNKNOWN, minion.card) and (t.y - minion.y) * towards_owner > 0:
            view["buffs"] += 1
        elif t.card in (UNKNOWN, minion.card) or _is_minion_card(t.card):
            view["spells"].append(UNNAMED)  # a minion's name there is a spell's misread
        elif not _is_minion_card(t.card) and t.card not in view["spells"]:
            view["spells"].append(t.card)


def _unnamed_minions(player: str, mine: list[Trail],
                     placed: list[tuple[Trail, dict]]) -> list[tuple[float, dict]]:
    """A card lying face up in the minion row, alone, that no frame names surely enough:
    a minion (a totem turned over) whose name the camera could not read (UNNAMED)."""
    return [(t.x, {"card": UNNAMED, "damage": 0, "buffs": 0, "spells": [], "attacking": False})
            for t in mine if t.zone == f"{player}.minions" and t.card == UNKNOWN
            and not t.sideways and all(math.dist((t.x, t.y), (m.x, m.y)) >= MARKER_REACH_MM
                                       for m, _ in placed)]


def build_view(trails: list[Trail], laid: dict[str, int] | None = None) -> TableView:
    """The stable trails as the rules read the table (`tracker.camera.view`); `laid`: the frame
    each name came onto the discard pile, where known."""
    named: dict[str, Trail] = {}
    for trail in sorted(trails, key=lambda t: -sum(t.votes.values())):
        if trail.face_up and trail.card in named:
            continue  # one physical card is in one place: the better seen trail keeps it
        named.setdefault(trail.card, trail)
    sides = {}
    for player in PLAYERS:
        mine = [t for t in trails if (t.zone or "").startswith(player + ".")]
        minions: list[tuple[float, dict]] = []
        placed: list[tuple[Trail, dict]] = []
        hosts = [t for t in mine if t.zone.split(".", 1)[1] in ("minions", "attack", "totems")
                 and t.face_up and not t.sideways and named.get(t.card) is t
                 and not _tucked_spell(t, mine, player)]
        buffs = _buff_markers(mine, hosts, player)
        for t in hosts:
            if id(t) not in buffs:
                minions.append((t.x, {"card": t.card, "damage": 0, "buffs": 0, "spells": [],
                                      "attacking": t.zone.endswith(".attack")}))
                placed.append((t, minions[-1][1]))
        for host in buffs.values():
            for trail, view in placed:
                view["buffs"] += trail is host
        _spells_under(player, [t for t in mine if id(t) not in buffs], placed)
        minions += _unnamed_minions(player, mine, placed)
        cards = list(minions)
        stacks: list[float] = []
        for t in sorted(mine, key=lambda t: t.x):
            zone = t.zone.split(".", 1)[1]
            if zone not in ("minions", "totems") or not _face_down(t):
                continue
            owner = min(cards, key=lambda m: abs(m[0] - t.x)) if cards else None
            if owner and abs(owner[0] - t.x) < MARKER_REACH_MM:  # tucked under a minion
                owner[1]["damage" if t.sideways else "buffs"] += 1
            elif not t.sideways and not (stacks and t.x - stacks[-1] < STACK_MM):
                stacks.append(t.x)  # a token: a face-down stack (its lower cards offset)
        minions += [(x, {"card": None, "damage": 0, "buffs": 0, "spells": [],
                         "attacking": False}) for x in stacks]
        weapon = next((t.card for t in mine if t.zone == f"{player}.weapon" and t.face_up),
                      None)
        sides[player] = SideView(
            minions=tuple(MinionView(id=m["card"] if m["card"] not in (None, UNNAMED)
                                     else f"{'stack' if m['card'] is None else 'unnamed'}@{x:.0f}",
                                     **{**m, "spells": tuple(m["spells"])})
                          for x, m in sorted(minions, key=lambda m: m[0])),
            weapon=weapon,
            durability=sum(1 for t in mine if t.zone == f"{player}.weapon" and _face_down(t)),
            armor=sum(1 for t in mine if t.zone == f"{player}.armor" and t.card == BACK),
            secrets=sum(1 for t in mine if t.zone == f"{player}.secrets" and t.card == BACK),
            power_used=_power_used(mine, player))
    top = _pile_top([t for t in trails if t.zone == "discard" and t.face_up], laid or {})
    return TableView(sides=sides, deck=0, discard=(top,) if top else ())


def _pile_top(discard: list[Trail], laid: dict[str, int]) -> str | None:
    """The name that came onto the pile last (laid in the same place as the card it covers,
    it may be the same trail with a new name). One card laid may be found twice and named
    two ways: of the names that came with it, the frames' votes pick."""
    if not discard:
        return None
    came = {t.card: laid.get(t.card, max(t.first, t.named_since)) for t in discard}
    last = max(came.values())
    arrived = [card for card, frame in came.items() if frame >= last - ARRIVAL_FRAMES]
    return max(arrived, key=lambda card: (sum(t.votes[card] for t in discard), card))
