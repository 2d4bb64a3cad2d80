"""From what the camera sees to the events that explain it, as a camera chess tracker picks
the legal move that fits the board.

Between two stable views of the table, the engine predicts the view each candidate event
would leave (`tracker.camera.view.expected_view` on a copy of the game), and the candidate whose
prediction is nearest to what the camera sees is chosen. Candidates come from what changed:
a card newly face up is played (each target and choice), a minion seen in its attack zone
or a hero whose card was tilted attacks (each target), a change with no new card may be the
hero power.
When no single event explains the view, pairs are tried (and after a blind spell, up to
four events: `BLIND_DEPTH`). Candidates that leave the same
view but a different game (Fireblast at one hero or the other: hero health is never on the
table) make the choice ambiguous: the answer lists them, most likely first, for a question.

Knows nothing of pixels: views come from the camera's stabilizer or, in tests, from the
engine itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cards import DECK, JOKER, split_card
from tracker.rules.abilities import Ability
from tracker.rules.cards import PLAYERS, other, parse_card
from tracker.rules.engine import EngineError, Game
from tracker.rules.events import Attack, Event, SecretRevealed
from tracker.rules.intent import against_intent
from tracker.rules.legality import card_plays, characters, power_uses

from .view import (
    NO_HINTS,
    TOKEN,
    UNNAMED,
    Hints,
    MinionView,
    SideView,
    TableView,
    expected_view,
)

# What a difference weighs: a face-up card in the wrong place is a certain miss; a marker
# count is often off by one (a marker hidden under a hand, two markers seen as one).
CARD_MISS = 10.0
MINION_MISS = 6.0
SECRET_MISS = 3.0
DISCARD_MISS = 3.0  # the pile's top, read at a glance and often half covered, misread
MARKER_MISS = 1.0
UNNAMED_SPELL_MISS = 3.0  # a card seen under a minion and no spell predicted there
HIDDEN_MARKER = 0.4  # a fanned marker not seen: the next one covers it
BUFF_MISS = 0.4  # a +1/+1 under another shows only a strip: often not seen at all
ILLEGAL = 3.0  # a legal explanation is preferred to an illegal one up to a few markers nearer
EXPLAINED = 0.5  # at most this far: the view is explained
NOISE = 1.5  # what a camera's view may be off by with nothing having happened
EXTRA_EVENT = 0.75  # a second event must explain more than one marker
UNUSED_SLIDE = 2.0  # a minion seen slid forward (a hero's card tilted) that did not attack
UNUSED_SHOWN = 2.0  # a card seen shown (a spell cast) that no event plays
DEPTH_TWO_KEEP = 6  # sequences kept to try one event more after (the beam's width)
BLIND_DEPTH = 4  # events the camera may have missed while it saw nothing
DISCARD_TOGETHER = 3  # the pile's top cards whose order the camera may see mixed
RUNNERS_UP = 4  # the next nearest explanations kept for a person's fix …
RUNNERS_UP_SCAN = 60  # … looked for among this many
ACCUSE_GAP = 2 * MARKER_MISS  # a rule break is flagged when no legal story comes this near


@dataclass
class Explanation:
    """The events that best explain a view, how far their prediction is from it, and the
    other explanations just as near that leave a different game (a question's options)."""

    events: list[Event]
    distance: float  # with ILLEGAL for each event that breaks a rule
    alternatives: list[list[Event]] = field(default_factory=list)
    illegal: int = 0  # events that break a rule
    # with illegal events: the nearest explanation that breaks no rule (none: nothing
    # happened), and its distance
    legal: list[Event] = field(default_factory=list)
    legal_distance: float = 0.0
    accused: bool = False  # the rule break is what the camera saw (`accuses`)
    # the next nearest explanations that leave another game: what a person may pick instead
    runners_up: list[list[Event]] = field(default_factory=list)
    view: TableView | None = None  # what it explains, to explain again after a person's fix
    hints: Hints = NO_HINTS

    @property
    def explained(self) -> bool:
        """The view is as the events leave it (whether or not they break the rules, and
        however many it took: those costs only rank explanations)."""
        return self.seen_distance <= EXPLAINED

    @property
    def ambiguous(self) -> bool:
        return bool(self.alternatives)

    @property
    def seen_distance(self) -> float:
        """How far the view is from what the events leave, their rule breaks and number
        aside."""
        return self.distance - ILLEGAL * self.illegal - _extra(self.events)


# --- how far two views are ------------------------------------------------------------------

def _spell_distance(expected: tuple[str, ...], seen: tuple[str, ...]) -> float:
    """Buff spells under a minion: a named one is a card; one the camera could not name
    (`UNNAMED`) stands for any the prediction has there."""
    named = {card for card in seen if card != UNNAMED}
    unnamed = len(seen) - len(named)
    missing = len(set(expected) - named)
    matched = min(unnamed, missing)
    return CARD_MISS * (len(named - set(expected)) + missing - matched) \
        + UNNAMED_SPELL_MISS * (unnamed - matched)


def _minion_distance(a: MinionView, b: MinionView) -> float:
    spells = _spell_distance(a.spells, b.spells)
    stack = abs(a.stack - b.stack) if a.stack and b.stack else 0  # 0: not counted
    return spells + MARKER_MISS * (abs(a.damage - b.damage) + stack) \
        + _buffs(a.buffs, b.buffs)


def _buffs(expected: int, seen: int) -> float:
    """+1/+1 markers under a minion: the first one shows its strip, the next ones hide
    under it; one seen in excess is a marker miscounted."""
    if seen >= expected:
        return MARKER_MISS * (seen - expected)
    first = MARKER_MISS if seen == 0 else BUFF_MISS
    return first + BUFF_MISS * (expected - seen - 1)


def _side_distance(expected: SideView, seen: SideView) -> float:
    cards_e = {m.card: m for m in expected.minions if m.card}
    cards_s = {m.card: m for m in seen.minions if m.card and m.card != UNNAMED}
    # a minion the camera could not name stands for any the prediction has that it misses
    missing, unnamed = len(cards_e.keys() - cards_s.keys()), \
        sum(m.card == UNNAMED for m in seen.minions)
    named = min(missing, unnamed)
    distance = CARD_MISS * (missing - named + len(cards_s.keys() - cards_e.keys())) \
        + MINION_MISS * (unnamed - named)
    distance += sum(_minion_distance(cards_e[c], cards_s[c])
                    for c in cards_e.keys() & cards_s.keys())
    tokens_e = [m for m in expected.minions if not m.card]
    tokens_s = [m for m in seen.minions if not m.card]
    distance += MINION_MISS * abs(len(tokens_e) - len(tokens_s))
    distance += sum(_minion_distance(a, b) for a, b in zip(tokens_e, tokens_s, strict=False))
    if expected.weapon != seen.weapon:  # one weapon for another: misread under its markers
        distance += _misread(expected.weapon, seen.weapon) if expected.weapon and seen.weapon \
            else CARD_MISS
    distance += _fanned(expected.durability, seen.durability) \
        + _fanned(expected.armor, seen.armor)
    distance += SECRET_MISS * abs(expected.secrets - seen.secrets)
    if seen.power_used is not None and expected.power_used != seen.power_used:
        distance += CARD_MISS
    return distance


def _fanned(expected: int, seen: int) -> float:
    """Markers fanned beside one another (armor, a weapon's durability) hide one another:
    fewer seen than there are is likelier than more."""
    return MARKER_MISS * max(0, seen - expected) + HIDDEN_MARKER * max(0, expected - seen)


def _misread(expected: str, seen: str) -> float:
    """A card read as another where it is half covered: likelier with one of its index's
    two signs right."""
    if JOKER in (expected, seen):
        return DISCARD_MISS
    same = any(a == b for a, b in zip(split_card(expected), split_card(seen), strict=True))
    return DISCARD_MISS - MARKER_MISS if same else DISCARD_MISS


def view_distance(expected: TableView, seen: TableView) -> float:
    """How far the camera's view is from a predicted one (0: nothing tells them apart)."""
    distance = sum(_side_distance(expected.sides[p], seen.sides[p]) for p in expected.sides)
    if seen.discard_top is not None and expected.discard_top != seen.discard_top:
        # cards that reach the pile together (two minions dying) may land in either order
        near_top = seen.discard_top in expected.discard[-DISCARD_TOGETHER:]
        distance += MARKER_MISS if near_top else DISCARD_MISS
    return distance


# --- what might have happened ---------------------------------------------------------------

def candidates(game: Game, seen: TableView, rng: random.Random, hints: Hints,
               start: TableView | None = None) -> list[Event]:
    """Single events worth predicting: guided by what changed, never every event there is
    (`start`: the table before the view's first event, where `game` is further on)."""
    player = game.active
    found: list[Event] = []
    expected = expected_view(game)
    known = expected.face_up()
    new = _new_cards(seen, expected, start)
    shown = [card for card in hints.revealed if card not in known]
    for card in dict.fromkeys([*new, *shown]):
        owners = [player, other(player)] if card != JOKER else [player]
        for owner in owners:  # a card seen on the wrong side is still tried, and flagged
            found += card_plays(game, owner, card, rng, every_spread=True)
    found += _secrets_set(game, seen, rng)
    found += _weapons_laid(game, seen, expected, rng)
    everyone = characters(game)
    slid = _slid(game, hints)
    # with no slide seen, any minion; the hero too when it has attack (its tilt unseen)
    armed = [player] if game.attack_of(player) > 0 and player not in slid else []
    for attacker in slid or [m.id for m in game.sides[player].minions] + armed:
        found += [Attack(attacker=attacker, target=t) for t in everyone if t != attacker]
    uses = power_uses(game, player, rng)
    found += uses
    if _turns_over(game.sides[player].hero.power):  # Totemic Call: the totem stays up
        for revealed in _turned_over(game, hints, new):
            found += [use.model_copy(update={"revealed": revealed}) for use in uses]
    found += _secrets_revealed(game, seen, hints)
    return found


def _new_cards(seen: TableView, expected: TableView, start: TableView | None = None
               ) -> list[str]:
    """Cards face up where the game does not have them: from a hand, or picked up from
    the discard pile's top and played again. A card showing on the pile is not one: a
    card of the pile on top is the pile read badly, and a card the game has in play that
    shows there left play (a death, explained by what killed it). Nor is a card still
    where it lay before the view's first event (`start`) that those events took away: a
    minion killed and not yet carried off, not one played again."""
    known = expected.face_up()
    before = start.face_up() if start is not None else {}
    return [card for card, place in seen.face_up().items() if known.get(card) != place
            and before.get(card) != place
            and not (place == "discard" and (card in known or card in expected.discard))]


def _turns_over(power: Ability) -> bool:
    """The hero power turns cards over from the deck (Totemic Call)."""
    return any(effect.word == "totemic_call" for _, effects in power.effect_lists()
               for effect in effects)


def _turned_over(game: Game, hints: Hints, new: list[str]) -> list[list[str]]:
    """What Totemic Call may have turned over: the cards seen shown that may lie in the
    deck, then the totem, which stays face up in play (a new card, not one shown); or each
    new card alone, since a card shown may have been another move's (a spell on its way to
    the pile)."""
    shown = [c for c in hints.revealed if game.table.where(c) in (None, "deck")]
    ways = [[*shown, card] for card in new if card not in shown]
    ways += [shown] if shown else []
    ways += [[card] for card in new]
    return [way for k, way in enumerate(ways) if way not in ways[:k]]


def _slid(game: Game, hints: Hints) -> list[str]:
    """The characters seen slid to attack (not a spell shown in the zone) or a hero whose
    card was tilted; a face-down stack slid is one of the active player's tokens, any of
    them."""
    slid = [a for a in hints.attackers
            if a in PLAYERS or (a != TOKEN and game.find(a) is not None)]
    if TOKEN in hints.attackers:
        slid += [m.id for m in game.sides[game.active].minions if m.card is None]
    return slid


def _secrets_revealed(game: Game, seen: TableView, hints: Hints) -> list[Event]:
    """A secret of the waiting player gone from the table: revealed (the card seen as it
    was turned over, or any it may be), at any target."""
    waiting = other(game.active)
    secrets = game.sides[waiting].secrets
    if seen.sides[waiting].secrets >= len(secrets):
        return []
    cards = [c for c in hints.revealed if c in secrets] or list(dict.fromkeys(secrets))
    return [SecretRevealed(player=waiting, card=card, target=target)
            for card in cards for target in [None, *characters(game)]]


def _secrets_set(game: Game, seen: TableView, rng: random.Random) -> list[Event]:
    """A new face-down card in the secrets zone: a secret, whose face no camera sees; each
    secret the hero has that is not known to lie elsewhere is a candidate."""
    player = game.active
    hero = game.sides[player].hero
    if seen.sides[player].secrets <= len(game.sides[player].secrets) or not hero.secret_rank:
        return []
    found: list[Event] = []
    for suit in hero.secrets:
        card = hero.secret_rank + suit
        if may_hold(game, player, card):
            found += card_plays(game, player, card, rng)
    return found


def may_hold(game: Game, player: str, card: str) -> bool:
    """`card` may be in `player`'s hand: the ledger has it there, in the deck, or nowhere
    seen (a card whose face no camera saw is any of those)."""
    return game.table.where(card) in (None, "deck", f"hand:{player}")


def _weapons_laid(game: Game, seen: TableView, expected: TableView,
                  rng: random.Random) -> list[Event]:
    """A card in the weapon zone that is not the weapon the game has there: read under its
    markers, it may be misread, so each of the hero's weapons not known to lie elsewhere is
    a candidate."""
    player = game.active
    laid = seen.sides[player].weapon
    if laid is None or laid == expected.sides[player].weapon:
        return []
    hero = game.sides[player].hero
    found: list[Event] = []
    for rank, ability in hero.ranks.items():
        if ability.kind != "weapon":
            continue
        for suit in "SHDC":
            card = rank + suit
            if card != laid and may_hold(game, player, card):
                found += card_plays(game, player, card, rng)
    return found


def _after(game: Game, events: list[Event]) -> Game | None:
    ahead = game.copy()
    try:
        for event in events:
            ahead.apply(event)
    except EngineError:
        return None
    return ahead


def _score(game: Game, events: list[Event], seen: TableView,
           hints: Hints = NO_HINTS) -> tuple[float, Game] | None:
    ahead = _after(game, events)
    if ahead is None:
        return None
    # an explanation is legal or not: the rules one event breaks are not counted one by one
    illegal = _illegal(game, ahead)
    return view_distance(expected_view(ahead), seen) + ILLEGAL * illegal + _extra(events) \
        + _hints_unused(game, events, hints), ahead


def _hints_unused(game: Game, events: list[Event], hints: Hints) -> float:
    """What the events leave of what the camera saw between two views: a slide with no
    attack, a card shown (a spell cast, the coin) that may be in a hand and is not played
    or turned over."""
    return UNUSED_SLIDE * _slides_unused(game, events, hints) \
        + UNUSED_SHOWN * _shown_unused(game, events, hints)


def _shown_unused(game: Game, events: list[Event], hints: Hints) -> int:
    """Cards held face up in an attack zone (a spell shown as it is cast) that may be in a
    hand and that no event plays or turns over."""
    used = {getattr(e, "card", None) for e in events}
    used.update(card for e in events for card in getattr(e, "revealed", None) or ())
    return sum(_unplaced(game, card) for card in hints.revealed
               if card in hints.attackers and card not in used)


def _unplaced(game: Game, card: str) -> bool:
    """No face of the table has `card`: it is in a hand or the deck, or nowhere seen."""
    where = game.table.where(card)
    return where is None or where == "deck" or where.startswith("hand:")


def _slides_unused(game: Game, events: list[Event], hints: Hints) -> int:
    """The characters seen slid into their attack zone (or a hero's card tilted) that do
    not attack in `events` (a minion's card held there is one, played or not yet); a
    face-down stack's slide is any token's."""
    attackers = {e.attacker for e in events if isinstance(e, Attack)}
    named = [a for a in hints.attackers if a in PLAYERS or (a != TOKEN and (
        game.find(a) is not None or (a in DECK and parse_card(a).is_minion)))]
    unused = sum(a not in attackers for a in named)
    if TOKEN in hints.attackers:
        tokens = {m.id for m in game.sides[game.active].minions if m.card is None}
        unused += not attackers & tokens
    return unused


def _extra(events: list[Event]) -> float:
    """What each event past the first costs an explanation: the simplest story first."""
    return EXTRA_EVENT * max(0, len(events) - 1)


def _illegal(game: Game, ahead: Game) -> int:
    return len({a.event for a in ahead.alerts[len(game.alerts):] if a.severity == "illegal"})


def _unlikely(game: Game, events: list[Event]) -> int:
    """Of explanations the camera cannot tell apart, the one as people play comes first."""
    return sum(against_intent(game, event) for event in events)


def explain(game: Game, seen: TableView, hints: Hints = NO_HINTS, *, depth: int = 2,
            seed: int = 0) -> Explanation:
    """The events, at most `depth` of them, whose predicted view is nearest to `seen`: one
    event, then, while none explains the view, the nearest few sequences one event longer
    (a beam: after a blind spell the camera may have missed several). It keeps the view
    and hints it explains."""
    found = _explain(game, seen, hints, depth, random.Random(seed))
    found.view, found.hints = seen, hints
    return found


def _explain(game: Game, seen: TableView, hints: Hints, depth: int,
             rng: random.Random) -> Explanation:
    start = expected_view(game)
    still = view_distance(start, seen) + _hints_unused(game, [], hints)
    scored: list[tuple[float, list[Event], Game]] = []
    beam: list[tuple[float, list[Event], Game]] = [(still, [], game)]

    def rank(entry: tuple[float, list[Event], Game]) -> tuple[float, int]:
        return entry[0], _unlikely(game, entry[1])

    for _ in range(depth):
        longer = []
        for _, before, ahead in beam:
            for event in candidates(ahead, seen, rng, hints, start):
                result = _score(game, [*before, event], seen, hints)
                if result:
                    longer.append((result[0], [*before, event], result[1]))
        longer.sort(key=rank)
        scored = sorted(scored + longer, key=rank)
        # a legal sequence that leaves the view as seen: no longer one can rank before it
        if not scored or scored[0][0] - _extra(scored[0][1]) <= EXPLAINED:
            break
        beam = longer[:DEPTH_TWO_KEEP]
    if not scored:
        return Explanation([], still)
    best, events, ahead = scored[0]
    illegal = _illegal(game, ahead)
    # an event must explain more of the view than a marker miscounted (a minion's slide is
    # an attack; a spell shown in the attack zone is not); a rule it breaks counts against
    # it among explanations, not here
    if best - ILLEGAL * illegal > still - NOISE and not _slid(game, hints):
        return Explanation([], still)
    outcome = ahead.state().model_dump(exclude={"alerts"})
    alternatives, runners_up, outcomes = [], [], [outcome]
    for distance, other_events, other_game in scored[1:RUNNERS_UP_SCAN]:
        if distance > best and len(runners_up) == RUNNERS_UP:
            break
        other_outcome = other_game.state().model_dump(exclude={"alerts"})
        if other_outcome not in outcomes:
            outcomes.append(other_outcome)
            (alternatives if distance <= best else runners_up).append(other_events)
    found = Explanation(events, best, alternatives, illegal, runners_up=runners_up)
    if illegal:
        found.legal, found.legal_distance = _nearest_legal(game, scored, still)
        found.accused = accuses(game, found, hints)
    return found


def accuses(game: Game, found: Explanation, hints: Hints) -> bool:
    """Whether the camera saw a rule broken, rather than misread a legal play (a card read
    as another, a marker miscounted, an event missed before): the view is as the illegal
    events leave it, within a camera's noise, and no legal explanation comes near; or an
    attack the camera saw slide (an attack on a hero leaves nothing else on the table)."""
    if found.seen_distance > NOISE:
        return False
    slid = set(_slid(game, hints))
    if any(isinstance(e, Attack) and e.attacker in slid for e in found.events):
        return True
    return found.legal_distance - found.seen_distance >= ACCUSE_GAP


def _nearest_legal(game: Game, scored: list[tuple[float, list[Event], Game]],
                   still: float) -> tuple[list[Event], float]:
    """The nearest of the explanations tried that breaks no rule; nothing happened, when
    none is nearer than that."""
    for distance, events, ahead in scored:
        if distance >= still:
            break
        if not _illegal(game, ahead):
            return events, distance
    return [], still
