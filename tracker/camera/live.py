"""The live tracker: the phone's inputs and the camera's stable views in, the game's event
log out.

The phone gives what no camera can see (the new game, the end of each turn, a concession);
every other event is the reconciler's explanation of a change on the table, applied with
`source: camera` and a confidence, at once (provisional where it explains its view badly:
the next view may revise it). Where the camera cannot tell explanations apart, the
likeliest is applied and a question is kept with the others, so that a person can change
the answer (`answer`); a rule break the camera may have misread is applied `unsure` and
asked. Any camera event can be fixed by a person (`fix`, `name_card`), and what the
camera missed added (`missed`). An answer or a fix replays the log from that point and
explains the later views again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from tracker.rules.board import EngineError
from tracker.rules.cards import other
from tracker.rules.engine import Game
from tracker.rules.events import Attack, EndTurn, Event, NewGame, Play
from tracker.rules.legality import characters
from tracker.rules.narrate import describe_event
from tracker.rules.secrets import answers, reveal_before_last

from .questions import Option, Question
from .reconcile import BLIND_DEPTH, Explanation, explain, may_hold, view_distance
from .view import NO_HINTS, Hints, TableView, expected_view, renamed

PHONE_EVENTS = ("new_game", "end_turn", "concede")  # no camera sees them: `simulate` writes them
# what the phone also gives a camera game: the mulligans, made in the hands (no camera sees
# how many cards a player set aside)
PHONE_INPUTS = (*PHONE_EVENTS, "mulligan")
MISSABLE = ("play", "attack", "hero_power", "secret_revealed")  # what a camera may miss
ASKED = "Which happened? The first is in the score now."
UNSURE = "Against the rules, or misread? The first is in the score, not flagged."
NOTHING = "Nothing happened: the camera misread the table"
MAX_OPTIONS = 20  # a question's options (the likeliest first)
MAX_QUESTIONS = 50  # the newest open choices put to the phones; older ones keep their answer
REVISE_MARGIN = 0.5  # a revised explanation must be this much nearer to replace the last
FALSE_END_DROPS = 3  # the camera's events at most taken out to undo an end the table denies


def fix_options(game: Game, fixes: list[Fixes], index: int) -> list[list[Event]]:
    """What a person may put in place of the events of the view that the camera's event
    `index` of `game`'s log came from (with the tracker's `fixes`): the view's other
    explanations, nearest first; its events with this one's target or attacker changed, or
    without this one; nothing happened. Legal ones only, but for those the camera found."""
    fix = next((f for f in fixes if f.covers(index)), None)
    options = [] if fix is None else [list(o) for n, o in enumerate(fix.options)
                                      if n != fix.chosen]
    # an option stands for all the view's events: the others stay as they are
    view = [game.events[index]] if fix is None else list(fix.options[fix.chosen])
    at = 0 if fix is None else index - fix.index

    def instead(events: list[Event]) -> list[Event]:
        return [*view[:at], *events, *view[at + 1:]]

    before = game.copy().undo_to(index)
    event = game.events[index].model_copy(update={"source": None, "confidence": None,
                                                  "unsure": None})
    for variant in _variants(before, event):
        if instead([variant]) not in options and before.is_legal(variant):
            options.append(instead([variant]))
    if len(view) > 1 and instead([]) not in options:
        options.append(instead([]))  # this event did not happen; the view's others did
    return [o for o in options if o] + [[]]


def in_words(before: Game, events: Sequence[Event]) -> str:
    """Events in words as they play on a copy of `before`, each with the rule it breaks;
    none: nothing happened. A secret set is told face down, as every page tells it: the
    questions are in the public state (and no camera reads a face-down card)."""
    if not events:
        return NOTHING
    ahead, words = before.copy(), []
    for event in events:
        try:
            broken = [a.message for a in ahead.apply(event) if a.severity != "warning"]
        except EngineError as error:
            words.append(f"{event.type} (the rules cannot apply it: {error})")
            break
        words.append(describe_event(ahead, event, hide_secrets=True).split("] ", 1)[-1]
                     + "".join(f" (against the rules: {why})" for why in broken[:1]))
    return "; ".join(words)


def _variants(before: Game, event: Event) -> list[Event]:
    """The event with another target (a play, a hero power, a secret, an attack), or
    another attacker (an attack)."""
    if getattr(event, "target", None) is None or isinstance(event.target, list):
        return []
    everyone = characters(before)
    found = [event.model_copy(update={"target": t}) for t in everyone
             if t != event.target and t != getattr(event, "attacker", None)]
    if isinstance(event, Attack):
        attackers = [before.active, *[m.id for m in before.sides[before.active].minions]]
        found += [event.model_copy(update={"attacker": a}) for a in attackers
                  if a not in (event.attacker, event.target)]
    return found


def _slid_attack_broke_a_rule(found: Explanation, hints: Hints) -> bool:
    """The rule break is an attack the camera saw slide: what it saw, not a move caught
    midway (an attack on a hero leaves nothing else on the table)."""
    return bool(found.illegal) and any(
        isinstance(e, Attack) and e.attacker in hints.attackers for e in found.events)


def _renamed(ident: str | list[str], read: str, card: str) -> str | list[str]:
    if isinstance(ident, list):
        return [card if t == read else t for t in ident]
    return card if ident == read else ident


def _new_in_play(game: Game, view: TableView) -> bool:
    """A card face up on the table that the game does not have there (not the discard's
    top): a play. A table being cleared after the end shows none."""
    known = expected_view(game).face_up()
    return any(card not in known for card in view.face_up() if card != view.discard_top)


def _unused(found: Explanation, hints: Hints) -> Hints:
    """The hints an explanation's events did not use: attackers that did not attack, cards
    shown that were not played."""
    attacked = {getattr(e, "attacker", None) for e in found.events}
    played = {getattr(e, "card", None) for e in found.events}
    return Hints(attackers=tuple(a for a in hints.attackers if a not in attacked),
                 revealed=tuple(c for c in hints.revealed if c not in played))


def _merged(first: Hints, then: Hints) -> Hints:
    return Hints(attackers=tuple(dict.fromkeys([*first.attackers, *then.attackers])),
                 revealed=tuple(dict.fromkeys([*first.revealed, *then.revealed])))


@dataclass
class Choice:
    """A view the camera explained: where its events went in the log, and the other ways
    the table could have come about (the first is the one applied), nearest first, then
    "nothing happened". One it could not be sure of is `asked` (a question); any may be
    fixed by a person (`LiveTracker.fix`)."""

    index: int  # the log's index of the first event it applied
    options: list[list[Event]]
    chosen: int = 0
    id: int = 0
    answered: bool = False
    labels: list[str] = field(default_factory=list)  # each option in words (asked ones)
    prompt: str = ASKED
    asked: bool = True
    found: Explanation | None = None  # the explanation, with the view and hints it explains

    @property
    def events(self) -> list[Event]:
        return self.options[self.chosen]

    def covers(self, index: int) -> bool:
        return self.index <= index < self.index + len(self.events)


@dataclass(frozen=True)
class Fixes:
    """What a person may put in place of the events a view was explained by, as the phone
    offers it: the log's events `index` to `index + length`, and each option (`chosen` is
    the one in the log)."""

    index: int
    length: int
    options: tuple[tuple[Event, ...], ...]
    chosen: int

    def covers(self, index: int) -> bool:
        return self.index <= index < self.index + self.length


@dataclass
class LiveTracker:
    game: Game = field(default_factory=Game)
    choices: list[Choice] = field(default_factory=list)
    unexplained: int = 0  # stable views no events could explain
    _ids: int = 0  # the last choice's id
    # cards the players named by hand, by what the camera reads them as (while on the table)
    named: dict[str, str] = field(default_factory=dict)
    # the last view's events, applied though they explain it badly: where they went in
    # the log, the explanation, its hints (the next view may revise them)
    _provisional: tuple[int, Explanation, Hints] | None = None
    revisions: int = 0  # provisional events taken back when the next view showed better
    # the last explanation applied, which the next view may revise: where it went in the
    # log, the explanation, its hints
    _last: tuple[int, Explanation, Hints] | None = None
    # the camera saw nothing for a while: the next view may need several events
    _after_blind: bool = False
    # the end of turn and card last tried as the pile's unseen top (not tried again)
    _pile_named: tuple[int, str] | None = None

    @property
    def events(self) -> list[Event]:
        return self.game.events

    def phone(self, event: Event) -> None:
        """An input from the phone: a new game (its deck order unknown), a mulligan, an end
        of turn or a concession. A mulligan once the game has begun changes nothing (the
        engine keeps it with its alert)."""
        self.decide()  # a turn's end closes what happened in it
        self._last = None  # what is explained before a turn's end is not revised after it
        if isinstance(event, NewGame):
            event = NewGame(heroes=event.heroes, source="phone")
            self.choices = []
        elif self.game.over:
            self._undo_false_end()  # the players go on: the camera's end was false …
            if self.game.over:
                return  # … or the phone is only late to it
        elif event.source is None:
            event = event.model_copy(update={"source": "phone"})
        self.game.apply(event)

    def blind(self) -> None:
        """The camera saw nothing for a while (lost, frozen, covered): the game went on, so
        the next view is explained by up to `BLIND_DEPTH` events; nothing is guessed
        meanwhile."""
        self._after_blind = True

    @property
    def blinded(self) -> bool:
        """The camera saw nothing for a while since the last view it explained."""
        return self._after_blind

    def seen(self, view: TableView, hints: Hints = NO_HINTS, *, now: bool = False) -> Explanation:
        """A stable view of the table: apply the events that explain it, at once. A view
        that no events explain well may have been caught mid-move (a minion on the pile,
        the weapon's markers not yet taken): its events are provisional, and the next view
        revises them if both views together are explained better (fast, then right).
        Nothing stays provisional when it must be decided `now` (the turn ends)."""
        view, hints = self._as_named(view, hints)
        provisional, self._provisional = self._provisional, None
        if provisional and self.game.table is not None:
            return self._after_provisional(provisional, view, hints, now)
        if self.game.over and _new_in_play(self.game, view):
            self._undo_false_end()
        if self.game.table is None or self.game.over:
            return Explanation([], 0.0)
        self._name_discard(view, hints)
        self._unmask_secrets(hints.revealed)
        depth, self._after_blind = BLIND_DEPTH if self._after_blind else 2, False
        found = explain(self.game, view, hints, depth=depth)
        # a view left unexplained, or explained only by breaking a rule, may show that the
        # last one was a move caught midway
        if (not found.explained or found.illegal) and self._revise(view, hints, found):
            return self._last[1]
        return self._apply_at_once(found, hints, now)

    def _after_provisional(self, provisional: tuple[int, Explanation, Hints],
                           view: TableView, hints: Hints, now: bool) -> Explanation:
        """The provisional events then this view's, unless both views together are
        explained better from before them (it was a move caught midway): then they are
        taken back, a revision. What the provisional view saw that its events did not use
        may be this view's."""
        start, waited, waited_hints = provisional
        together = _merged(waited_hints, hints)
        found = explain(self.game.copy().undo_to(start), view, together)
        left = _merged(_unused(waited, waited_hints), hints)
        after = explain(self.game, view, left)
        if after.distance > found.distance:
            self._take_back(start)
            self.revisions += 1
            self._apply(found, together)
            return found
        if self.game.over:
            return after
        return self._apply_at_once(after, left, now)

    def _take_back(self, start: int) -> None:
        """The camera's events from `start` out of the log, with the choices they made."""
        self.game.undo_to(start)
        self.choices = [c for c in self.choices if c.index < start]
        self._last = None

    def _apply_at_once(self, found: Explanation, hints: Hints, now: bool) -> Explanation:
        """Apply at once; events that do not explain their view well stay provisional."""
        self._apply(found, hints)
        if not found.explained and found.events and not now:
            self._provisional = (self._last[0], found, hints)
        return found

    def _revise(self, view: TableView, hints: Hints, found: Explanation) -> bool:
        """A view the last explanation leaves unexplained may show that it was read from a
        move caught midway (the hero card turned before the marker was laid): explained
        again from before it, with both views' hints, if that is nearer. A view explained
        only by breaking a rule is so only where the table changed and legal events explain
        it whole: a rule broken plainly (the hero power used twice) stays as the table
        shows it."""
        if self._last is None or _slid_attack_broke_a_rule(found, hints):
            return False
        start, last, last_hints = self._last
        again = explain(self.game.copy().undo_to(start), view, _merged(last_hints, hints))
        if not again.events or again.distance >= found.distance - REVISE_MARGIN:
            return False
        kept = {(e.player, e.card) for e in again.events if isinstance(e, Play)}
        if any(isinstance(e, Play) and (e.player, e.card) not in kept for e in last.events):
            return False  # a card seen laid is no move caught midway
        if found.explained and (again.illegal or not again.explained
                                or view_distance(expected_view(self.game), view) == 0):
            return False  # a rule broken plainly: a move seen whole, not half of one
        self.game.undo_to(start)
        self.choices.pop()  # the last view's
        self._apply(again, _merged(last_hints, hints))
        return True

    def decide(self) -> None:
        """What is provisional stays as it is: no better view came (the turn ends)."""
        self._provisional = None

    @property
    def provisional(self) -> bool:
        """The last view's events are provisional: the next view may revise them."""
        return self._provisional is not None

    def _apply(self, found: Explanation, hints: Hints) -> None:
        if not found.events:
            self.unexplained += found.distance > 0
            return
        unsure = bool(found.illegal) and not found.accused
        options = [found.events, *found.alternatives]
        if unsure:  # a rule break the camera may have misread: asked, legal answers next
            options += [o for o in (found.legal, []) if o not in options]
        asked = len(options) > 1
        self._last = (len(self.game.events), found, hints)
        confidence = round(1.0 / (1.0 + found.distance + len(found.alternatives)), 3)
        self._ids += 1
        self.choices.append(Choice(
            len(self.game.events),
            options + [o for o in (*found.runners_up, []) if o not in options], id=self._ids,
            labels=[self._words(o) for o in options] if asked else [],
            prompt=UNSURE if unsure else ASKED, asked=asked, found=found))
        for event in found.events:
            sure = confidence / self._face_down_suits(event)
            update = {"source": "camera", "confidence": round(sure, 3)}
            self.game.apply(event.model_copy(update=update | ({"unsure": True} if unsure
                                                               else {})))
        self.unexplained += not found.explained

    def _face_down_suits(self, event: Event) -> int:
        """The secrets a face-down secret set by `event` may be (1 for any other event):
        no camera sees its suit until it is turned over."""
        hero = self.game.sides[event.player].hero if event.type == "play" else None
        if hero is None or not hero.is_secret(event.card):
            return 1
        return max(1, sum(may_hold(self.game, event.player, hero.secret_rank + suit)
                          for suit in hero.secrets))

    def _unmask_secrets(self, revealed: tuple[str, ...]) -> None:
        """A secret is set face down, so the camera guessed its card; turned over, it shows
        which it was: the guess is corrected where it went in the log. A card the game has
        elsewhere (a spell of the other player's on the pile) is not it."""
        waiting = other(self.game.active)
        secrets = self.game.sides[waiting].secrets
        hero = self.game.sides[waiting].hero
        for card in revealed:
            if card in secrets or not hero.is_secret(card) or \
                    not may_hold(self.game, waiting, card):
                continue
            for index, event in enumerate(self.game.events):
                if (event.type == "play" and event.player == waiting and event.card in secrets
                        and event.source == "camera"):
                    seen = event.model_copy(update={"card": card, "confidence": 1.0})
                    self._rewrite(index, [seen])
                    break

    def _name_discard(self, view: TableView, hints: Hints) -> None:
        """A hand over ten is discarded down as its turn ends, cards the rules cannot name
        (the player chooses). The camera sees the one on top of the pile: it goes in the
        log on that end of turn, so that it is not taken for a spell cast (a spell is
        shown in the attack zone first)."""
        table, top = self.game.table, view.discard_top
        if top is None or table.discard[-1:] != [None] or top in hints.attackers:
            return
        if (table.where(top) or "hand:").split(":")[0] not in ("hand", "deck"):
            return  # known to lie where no hand holds it
        index = max((i for i, e in enumerate(self.events) if isinstance(e, EndTurn)),
                    default=None)
        ended = self.events[index] if index is not None else None
        if ended is None or ended.discarded or self._pile_named == (index, top):
            return
        self._pile_named = index, top
        self._rewrite(index, [ended.model_copy(update={"discarded": [top]})])
        if self.game.table.discard[-1:] != [top]:  # the pile's unseen card is older
            self._rewrite(index, [ended])

    def _rewrite(self, index: int, events: list[Event], length: int = 1,
                 rename: Callable[[Event], Event] | None = None, *, again: bool = False) -> None:
        """Replace `length` events of the log from `index` by `events`; replay the rest (the
        events `rename`d). A later event that no longer makes sense on the table it now
        meets is dropped, and so is the choice that explained it. `again` (a person's word
        changed the past): each later view the camera explained, and no one answered, is
        explained again on the game as it now is."""
        later = self.game.events[index + length:]
        start = index + length
        chosen = {c.index: c for c in self.choices if c.index >= start}
        self.choices = [c for c in self.choices if c.index < start]
        self.game.undo_to(index)
        for event in events:
            with contextlib.suppress(EngineError):
                self.game.apply(event)
        skip = start
        for old, event in enumerate(later, start):
            if old < skip:
                continue  # a view explained again: its old events are gone
            choice = chosen.get(old)
            if again and choice is not None and not choice.answered and choice.found:
                skip = old + len(choice.events)
                self._explain_again(choice.found)
                continue
            with contextlib.suppress(EngineError):
                self.game.apply(rename(event) if rename else event)
                if choice is not None:
                    choice.index = len(self.game.events) - 1
                    self.choices.append(choice)
        self._last = None  # the log changed under it
        if again:
            self._provisional = None  # what was provisional was explained again

    def _explain_again(self, found: Explanation) -> None:
        """A view the camera explained, explained again on the game as it now is."""
        view, hints = self._as_named(found.view, found.hints)
        self._apply(explain(self.game, view, hints), hints)

    def _words(self, events: list[Event]) -> str:
        return in_words(self.game, events)

    def open_choices(self) -> list[Choice]:
        """The questions no one answered yet."""
        return [c for c in self.choices if c.asked and not c.answered]

    def asked(self) -> list[Choice]:
        """Every question the camera put, answered or not."""
        return [c for c in self.choices if c.asked]

    def fixes(self) -> list[Fixes]:
        """Each view's explanation still in the log, with what a person may put instead."""
        return [Fixes(c.index, len(c.events), tuple(tuple(o) for o in c.options), c.chosen)
                for c in self.choices]

    def _as_named(self, view: TableView, hints: Hints) -> tuple[TableView, Hints]:
        """The view with the cards the players named by hand, while those lie on the table."""
        table = self.game.table
        names = {read: card for read, card in self.named.items()
                 if table is not None and table.where(card) not in (None, "deck")
                 and not (table.where(card) or "").startswith("hand:")}
        return renamed(view, hints, names) if names else (view, hints)

    def name_card(self, index: int, card: str, target: str | list[str] | None = None,
                  choice: int | None = None) -> None:
        """The players name the card of the camera's play `index` by hand (with its target
        and Choose One choice, if they give them; else the camera's, where the card takes
        them): later events that name the misread card as attacker or target name it, and
        the camera's later readings of the misread card are taken as it."""
        play = self.game.events[index]
        read = play.card
        fixed = play.model_copy(update={"card": card, "source": "phone", "confidence": None,
                                        "unsure": None})
        if target is not None or choice is not None:
            fixed = fixed.model_copy(update={"target": target, "choice": choice})
        else:
            before = self.game.copy().undo_to(index)
            if {a.code for a in before.check(fixed)} & {"invalid_target", "missing_choice"}:
                fixed = fixed.model_copy(update={"target": None, "choice": None})
        if not self.game.sides[play.player].hero.is_secret(read):  # a secret's face is unseen
            self.named[read] = card

        def rename(event: Event) -> Event:
            update = {key: _renamed(getattr(event, key), read, card)
                      for key in ("attacker", "target") if getattr(event, key, None)}
            return event.model_copy(update=update) if update else event

        view = next((c for c in self.choices if c.covers(index)), None)
        if view is None:
            self._rewrite(index, [fixed], 1, rename, again=True)
            return
        events = [fixed if view.index + k == index else e
                  for k, e in enumerate(self.game.events[view.index:][:len(view.events)])]
        view.options.append(events)
        self.answer(view, len(view.options) - 1, rename)

    def fix(self, index: int, events: list[Event]) -> None:
        """A person's fix of the camera's event `index`: the events of the view it came
        from are replaced by `events` (one of that view's options, or the phone's own, such
        as the card named by hand), and the log is replayed from there. A camera event no
        view explains any longer is replaced alone."""
        choice = next((c for c in self.choices if c.covers(index)), None)
        if choice is None:
            self._rewrite(index, events, 1, again=True)
            return
        if events not in choice.options:
            choice.options.append(events)
        self.answer(choice, choice.options.index(events))

    def missed(self, event: Event, after: int | None = None) -> None:
        """The players add an event the camera missed: right after the log's event `after`
        (None: now, after the last). It is the phone's word; the camera's later views are
        explained again on the game with it (so a card it lays is not read as played twice).
        An event the engine cannot apply there raises `EngineError` and changes nothing."""
        event = event.model_copy(update={"source": "phone", "confidence": None,
                                         "unsure": None})
        if after is None or after == len(self.events) - 1:
            self.decide()  # what was provisional stays: the players saw the table since
            self._last = None
            if answers(self.game, event):
                self._before_last(event)
            else:
                self.game.apply(event)
            return
        self.game.copy().undo_to(after + 1).apply(event)  # checked before the log changes
        choice = next((c for c in self.choices if c.covers(after)), None)
        if choice is None:
            self._rewrite(after, [self.events[after], event], again=True)
            return
        view = self.events[choice.index:choice.index + len(choice.events)]  # as logged
        at = after - choice.index
        self.fix(after, [*view[:at + 1], event, *view[at + 1:]])

    def _before_last(self, reveal: Event) -> None:
        """A "when" secret said once the event it answers was seen ("Vaporize!" after the
        attack) goes before that event, which goes on as the secret left it, or not at all;
        the view that showed the event is explained so, not again (it showed the table
        before the secret went off)."""
        last = len(self.events) - 1
        reveal_before_last(self.game, reveal)  # EngineError: the game as it was
        self.choices = [c for c in self.choices if not c.covers(last)]

    def questions(self) -> list[Question]:
        """The newest open choices, as questions for the phones: each option in words, with
        the events it stands for (the first is the one applied)."""
        return [Question(id=c.id, prompt=c.prompt, options=[
            Option(label=label[:200], events=events)
            for label, events in list(zip(c.labels, c.options, strict=False))[:MAX_OPTIONS]])
            for c in self.open_choices()[-MAX_QUESTIONS:]]

    def _undo_false_end(self) -> None:
        """The camera's events ended the game, yet the table goes on changing: a hero's
        health is never on the table, so some damage the camera could not place went to the
        wrong one. The latest unanswered choice whose other answer leaves the game going is
        answered with it."""
        if self.game.events[-1].source != "camera":
            return  # a concession or the phone's word: the game did end
        ended, choices = self.game.copy(), [replace(c) for c in self.choices]
        for ident in reversed([c.id for c in self.open_choices()]):
            for option in range(1, len(next(c for c in choices if c.id == ident).options)):
                choice = next(c for c in self.choices if c.id == ident)
                self.answer(choice, option, again=False)
                choice.answered = False  # still the camera's guess, still a question
                if not self.game.over:
                    return
                # an answer may drop events and their choices: all as they were
                self.game, self.choices = ended.copy(), [replace(c) for c in choices]
        # no other answer helps: the camera's last events, back to the turn's start, are
        # taken out one by one (the latest first) until the game goes on
        for _ in range(FALSE_END_DROPS):
            last = self.game.events[-1]
            if last.source != "camera" or not self.game.over:
                break
            self._rewrite(len(self.game.events) - 1, [])
        if self.game.over:
            self.game = ended
        self.choices = [c for c in self.choices if c.index < len(self.game.events)]

    def answer(self, choice: Choice, option: int,
               rename: Callable[[Event], Event] | None = None, *, again: bool = True) -> None:
        """A person's answer to a choice: the log is replayed with it from that point (the
        later events `rename`d, where a card was named otherwise), and the views the camera
        explained after it are explained again (`again`)."""
        length = len(choice.events)
        choice.chosen, choice.answered = option, True
        events = [e if e.source else e.model_copy(update={"source": "camera"})  # its reading
                  for e in choice.events]
        self._rewrite(choice.index, events, length, rename, again=again)
