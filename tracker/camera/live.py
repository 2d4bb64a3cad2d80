"""The live tracker: the phone's inputs and the camera's stable views in, the game's event
log out.

The phone gives what no camera can see (the new game, the end of each turn, a concession);
every other event is the reconciler's explanation of a change on the table, applied with
`source: camera` and a confidence. Where the camera cannot tell explanations apart, the
likeliest is applied and a question is kept with the others, so that a person can change
the answer (`answer`), which replays the log from that point.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from tracker.rules.board import EngineError
from tracker.rules.cards import other
from tracker.rules.engine import Game
from tracker.rules.events import Event, NewGame
from tracker.rules.narrate import describe_event

from .questions import Option, Question
from .reconcile import BLIND_DEPTH, Explanation, explain, may_hold, view_distance
from .view import NO_HINTS, Hints, TableView, expected_view

PHONE_EVENTS = ("new_game", "end_turn", "concede")
ASKED = "The camera could not tell which happened; the first is in the score now:"
MAX_OPTIONS = 20  # a question's options (the likeliest first)
MAX_QUESTIONS = 50  # the newest open choices put to the phones; older ones keep their answer
REVISE_MARGIN = 0.5  # a revised explanation must be this much nearer to replace the last
FALSE_END_DROPS = 3  # the camera's events at most taken out to undo an end the table denies


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


def _half_a_move(again: Explanation, last: Explanation, changed: float) -> bool:
    """Whether a view explained only by breaking a rule shows the last view was half a
    move: the table changed since (the same table again is a move seen whole), and legal
    events explain both views whole, with every card the last one saw played."""
    played = {getattr(e, "card", None) for e in again.events}
    return changed > 0 and not again.illegal and again.explained and all(
        e.card in played for e in last.events if e.type == "play")


def _merged(first: Hints, then: Hints) -> Hints:
    return Hints(attackers=tuple(dict.fromkeys([*first.attackers, *then.attackers])),
                 revealed=tuple(dict.fromkeys([*first.revealed, *then.revealed])))


@dataclass
class Choice:
    """An explanation the camera could not be sure of: where it went in the log, and every
    answer the table allows (the first is the one applied)."""

    index: int  # the log's index of the first event it applied
    options: list[list[Event]]
    chosen: int = 0
    id: int = 0
    answered: bool = False
    labels: list[str] = field(default_factory=list)  # each option in words

    @property
    def events(self) -> list[Event]:
        return self.options[self.chosen]


@dataclass
class LiveTracker:
    game: Game = field(default_factory=Game)
    choices: list[Choice] = field(default_factory=list)
    unexplained: int = 0  # stable views no events could explain
    # a view explained badly, left to wait for the next: its explanation and hints
    _waiting: tuple[Explanation, Hints] | None = None
    # the last explanation applied, which the next view may revise: where it went in the
    # log, the explanation, its hints, whether it asked a question
    _last: tuple[int, Explanation, Hints, bool] | None = None
    # the camera saw nothing for a while: the next view may need several events
    _after_blind: bool = False

    @property
    def events(self) -> list[Event]:
        return self.game.events

    def phone(self, event: Event) -> None:
        """An input from the phone: a new game (its deck order unknown) or an end of turn."""
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
        """A stable view of the table: apply the events that explain it. A view that no
        events explain well may have been caught mid-move (a minion on the pile, the
        weapon's markers not yet taken): it waits for the next view, which is explained
        together with it if that explains both well, or else after it. Nothing waits when
        it must be decided `now` (the turn ends)."""
        if self.game.over and _new_in_play(self.game, view):
            self._undo_false_end()
        if self.game.table is None or self.game.over:
            return Explanation([], 0.0)
        waited, self._waiting = self._waiting, None
        if waited:
            return self._after_waiting(waited, view, hints, now)
        self._unmask_secrets(hints.revealed)
        depth, self._after_blind = BLIND_DEPTH if self._after_blind else 2, False
        found = explain(self.game, view, hints, depth=depth)
        # a view left unexplained, or explained only by breaking a rule, may show that the
        # last one was a move caught midway
        if (not found.explained or found.illegal) and self._revise(view, hints, found):
            return self._last[1]
        return self._apply_or_wait(found, hints, now)

    def _after_waiting(self, waited: tuple[Explanation, Hints], view: TableView,
                       hints: Hints, now: bool) -> Explanation:
        """The waiting view's events then this view's, unless both views together are
        explained better (it was a move caught midway); what the waiting view saw that its
        events did not use may be this view's."""
        together = _merged(waited[1], hints)
        self._unmask_secrets(together.revealed)
        found = explain(self.game, view, together)
        ahead = self.game.copy()
        for event in waited[0].events:
            ahead.apply(event)
        left = _merged(_unused(*waited), hints)
        if explain(ahead, view, left).distance > found.distance:
            self._apply(found, together)
            return found
        self._apply(*waited)
        return self._apply_or_wait(explain(self.game, view, left), left, now)

    def _apply_or_wait(self, found: Explanation, hints: Hints, now: bool) -> Explanation:
        if not found.explained and found.events and not now:  # it may wait for the next
            self._waiting = (found, hints)
            return Explanation([], found.distance)
        self._apply(found, hints)
        return found

    def _revise(self, view: TableView, hints: Hints, found: Explanation) -> bool:
        """A view the last explanation leaves unexplained may show that it was read from a
        move caught midway (the hero card turned before the marker was laid): explained
        again from before it, with both views' hints, if that is nearer. A view explained
        only by breaking a rule is so only by legal events that explain it whole: a rule
        broken plainly (the hero power used twice) stays as the table shows it."""
        if self._last is None:
            return False
        start, last, last_hints, asked = self._last
        before = self.game.copy()
        while len(before.events) > start:
            before.pop()
        again = explain(before, view, _merged(last_hints, hints))
        if not again.events or again.distance >= found.distance - REVISE_MARGIN:
            return False
        if found.explained and not _half_a_move(again, last, view_distance(
                expected_view(self.game), view)):
            return False  # a rule broken plainly: a move seen whole, not half of one
        while len(self.game.events) > start:
            self.game.pop()
        if asked:
            self.choices.pop()
        self._apply(again, _merged(last_hints, hints))
        return True

    def decide(self) -> None:
        """Apply the explanation of a view left waiting, as it is (no better view came)."""
        if self._waiting is not None and not self.game.over:
            found, hints = self._waiting
            self._waiting = None
            self._apply(found, hints)

    @property
    def waiting(self) -> bool:
        """A change is left waiting for a view that explains it better."""
        return self._waiting is not None

    def _apply(self, found: Explanation, hints: Hints) -> None:
        if not found.events:
            self.unexplained += found.distance > 0
            return
        self._last = (len(self.game.events), found, hints, bool(found.alternatives))
        confidence = round(1.0 / (1.0 + found.distance + len(found.alternatives)), 3)
        if found.alternatives:
            options = [found.events, *found.alternatives]
            self.choices.append(Choice(len(self.game.events), options,
                                       id=len(self.choices) + 1,
                                       labels=[self._words(o) for o in options]))
        for event in found.events:
            sure = confidence / self._face_down_suits(event)
            self.game.apply(event.model_copy(update={"source": "camera",
                                                     "confidence": round(sure, 3)}))
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

    def _rewrite(self, index: int, events: list[Event], length: int = 1) -> None:
        """Replace `length` events of the log from `index` by `events`; replay the rest. A
        later event that no longer makes sense on the table it now meets is dropped."""
        self._last = None  # the log changed under it
        later = self.game.events[index + length:]
        while len(self.game.events) > index:
            self.game.pop()
        for event in [*events, *later]:
            with contextlib.suppress(EngineError):
                self.game.apply(event)

    def _words(self, events: list[Event]) -> str:
        ahead, words = self.game.copy(), []
        for event in events:
            ahead.apply(event)
            words.append(describe_event(ahead, event).split("] ", 1)[-1])
        return "; ".join(words)

    def open_choices(self) -> list[Choice]:
        return [c for c in self.choices if not c.answered]

    def questions(self) -> list[Question]:
        """The newest open choices, as questions for the phones: each option in words, with
        the events it stands for (the first is the one applied)."""
        return [Question(id=c.id, prompt=ASKED, options=[
            Option(label=label[:200], events=events)
            for label, events in list(zip(c.labels, c.options, strict=True))[:MAX_OPTIONS]])
            for c in self.open_choices()[-MAX_QUESTIONS:]]

    def _undo_false_end(self) -> None:
        """The camera's events ended the game, yet the table goes on changing: a hero's
        health is never on the table, so some damage the camera could not place went to the
        wrong one. The latest unanswered choice whose other answer leaves the game going is
        answered with it."""
        if self.game.events[-1].source != "camera":
            return  # a concession or the phone's word: the game did end
        ended = self.game.copy()
        for choice in reversed(self.open_choices()):
            for option in range(1, len(choice.options)):
                self.answer(choice, option)
                choice.answered = False  # still the camera's guess, still a question
                if not self.game.over:
                    return
                self.game, choice.chosen = ended.copy(), 0  # an answer may drop events
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

    def answer(self, choice: Choice, option: int) -> None:
        """A person's answer to a choice: the log is replayed with it from that point."""
        length = len(choice.events)
        choice.chosen, choice.answered = option, True
        self._rewrite(choice.index, choice.events, length)
