"""A scripted player for the tracker benchmark: it watches the phone while the game is read,
and uses only what the phone offers to make the score right.

- A question whose likeliest answer (the one in the score) is wrong is answered with the
  true one: one tap. One already right is left alone: a question never blocks play.
- A camera event that did not happen as logged, once it has been on the phone for
  `PATIENCE_S`, is fixed with the choices the phone's history offers (`LiveTracker.fixes`):
  the view's option that matches what happened (two taps: the event, the option), else the
  card named by hand for a misread play (four: the event, "name the card", rank, suit),
  else "nothing happened" (two).
- What happened and is not on the phone `PATIENCE_S` after it was done on the table, with
  nothing wrong left to fix, is added as the camera's miss (`LiveTracker.missed`), right
  after the event it followed: the event tapped, "it missed something after this", then the
  event as the action bar records it (two taps, and one a card, attacker or target).

What happened is the game's truth, as the players at the table know it; the player is never
shown anything the page does not show.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from simulator.game_views import event_key
from tracker.camera.live import LiveTracker, fix_options
from tracker.rules.engine import EngineError, Game
from tracker.rules.events import Event, Play

SEEN = ("play", "attack", "hero_power", "secret_revealed")  # what the camera reports
PATIENCE_S = 5.0  # a wrong event is fixed once it has been on the phone this long
LINGER_S = 10.0  # a wrong event on the phone longer than this is counted
ANSWER_TAPS, FIX_TAPS, NAME_TAPS = 1, 2, 4
MAX_FIXES = 12  # a game's fixes at most: a player gives up long before


@dataclass
class ScriptedPlayer:
    truth: list[Event]  # the game as played
    fps: float
    done: list[int] | None = None  # the frame each of truth's events was done on the table
    taps: int = 0
    fixes: int = 0
    lingered: int = 0  # wrong events that stayed on the phone over LINGER_S
    _wrong_since: dict[tuple[str, int], int] = field(default_factory=dict)
    _counted: set[tuple[str, int]] = field(default_factory=set)

    def look(self, frame: int, tracker: LiveTracker, *, final: bool = False) -> None:
        """The phone as it is at `frame` (`final`: the game is over and the players look
        at it one last time, as long as it takes)."""
        self._answer(tracker)
        tried: set[int] = set()
        while self.fixes < MAX_FIXES:
            wrong = self._wrong(frame, tracker)
            due = [i for i, since in wrong if i not in tried
                   and (final or frame - since >= PATIENCE_S * self.fps)]
            if not due:
                break
            tried.add(due[0])
            if self._fix(due[0], tracker):
                tried = set()  # the log changed: indices moved
        while self.fixes < MAX_FIXES and self._add_missed(frame, tracker, final):
            pass

    # --- what happened, and what the phone says -------------------------------------------
    def _happened(self, tracker: LiveTracker) -> list[str]:
        """What the players did in the turns the phone has begun, each with its turn: they
        know their turn's plays before the camera sees them, and in no fixed order."""
        truth = self.truth[:self._begun(tracker)]
        return [_key(e, t) for e, t in zip(truth, _turns(truth), strict=True) if e.type in SEEN]

    def _begun(self, tracker: LiveTracker) -> int:
        """How many of truth's events are of the turns the phone has begun."""
        turns = sum(e.type == "end_turn" for e in tracker.events)
        for at, event in enumerate(self.truth):
            if event.type == "end_turn":
                turns -= 1
                if turns < 0:
                    return at
        return len(self.truth)

    def _logged(self, tracker: LiveTracker) -> list[tuple[int, str]]:
        events = tracker.events
        return [(i, _key(e, t)) for i, (e, t) in enumerate(zip(events, _turns(events),
                                                                strict=True)) if e.type in SEEN]

    def _unmatched(self, tracker: LiveTracker) -> tuple[list[int], Counter]:
        """The log's events that match nothing that happened (their indices: the latest of
        a kind the log has more of than happened), and what happened that the log does not
        have. Counted, not aligned: the order of a turn's events is not what players check."""
        happened, logged = Counter(self._happened(tracker)), self._logged(tracker)
        count: Counter = Counter(k for _, k in logged)
        excess = count - happened
        wrong = []
        for index, key in reversed(logged):
            if excess[key] > 0:
                excess[key] -= 1
                wrong.append(index)
        return sorted(wrong), happened - count

    def _wrong(self, frame: int, tracker: LiveTracker) -> list[tuple[int, int]]:
        """The wrong events on the phone (log index, frame first seen there), oldest first;
        those there longer than LINGER_S counted once."""
        indices, _ = self._unmatched(tracker)
        turns = _turns(tracker.events)
        seen: Counter = Counter()
        now = {}
        for index in indices:
            key = _key(tracker.events[index], turns[index])
            seen[key] += 1
            ident = (key, seen[key])
            since = self._wrong_since.get(ident, frame)
            now[ident] = since
            if frame - since > LINGER_S * self.fps and ident not in self._counted:
                self._counted.add(ident)
                self.lingered += 1
        self._wrong_since = now
        return sorted(zip(indices, now.values(), strict=True), key=lambda pair: pair[1])

    # --- taps -----------------------------------------------------------------------------
    def _answer(self, tracker: LiveTracker) -> None:
        """Each question whose answer in the score is wrong, answered with the option that
        has what happened (events the log lacks, or keeps right)."""
        wrong, missing = self._unmatched(tracker)
        for choice in tracker.open_choices():
            if not any(choice.covers(index) for index in wrong):
                continue
            turn = _turns(tracker.events)[choice.index]
            keys = [Counter(_key(e, turn) for e in option) for option in choice.options]
            right = missing + keys[choice.chosen]
            happened = self._happened(tracker)
            true = [n for n, k in enumerate(keys) if n != choice.chosen and k and not k - right
                    and k & missing and _in_order(choice.options[n], turn, happened)]
            if true:
                tracker.answer(choice, true[0])
                self.taps += ANSWER_TAPS
                wrong, missing = self._unmatched(tracker)

    def _fix(self, index: int, tracker: LiveTracker) -> bool:
        """Fix the wrong event `index` as the phone's history offers; False if the phone
        offers nothing that helps."""
        _, missing = self._unmatched(tracker)
        event = tracker.events[index]
        fixes = tracker.fixes()
        options = fix_options(tracker.game, fixes, index)
        # an option stands for the whole view: its events right now may stay
        fix = next((f for f in fixes if f.covers(index)), None)
        view, at = ([event], 0) if fix is None else (fix.options[fix.chosen], index - fix.index)
        without = [*view[:at], *view[at + 1:]]  # this one did not happen
        turn = _turns(tracker.events)[index]
        right = missing + Counter(_key(e, turn) for e in without)
        happened = self._happened(tracker)
        fits = [(sum((keys & missing).values()), n) for n, keys in
                enumerate(Counter(_key(e, turn) for e in o) for o in options)
                if keys & missing and not keys - right and _in_order(options[n], turn, happened)]
        if fits:
            tracker.fix(index, options[max(fits)[1]])
            self.taps, self.fixes = self.taps + FIX_TAPS, self.fixes + 1
            return True
        named = self._named(event, turn, missing)
        if named is not None:
            tracker.name_card(index, named.card, named.target, named.choice)
            extra = (named.target is not None) + (named.choice is not None)  # a tap each
            self.taps, self.fixes = self.taps + NAME_TAPS + extra, self.fixes + 1
            return True
        if any(json.loads(key.split(" ", 1)[1])["type"] == event.type for key in missing):
            return False  # what it was is not among the phone's choices: left as it is
        tracker.fix(index, without if without in options else [])
        self.taps, self.fixes = self.taps + FIX_TAPS, self.fixes + 1
        return True

    def _add_missed(self, frame: int, tracker: LiveTracker, final: bool) -> bool:
        """Add one event that happened `PATIENCE_S` ago or more and that the log lacks,
        after the log's event it followed; False if there is none the phone can add."""
        if self.done is None:
            return False
        _, missing = self._unmatched(tracker)
        late = frame if final else frame - PATIENCE_S * self.fps
        turns = _turns(self.truth)
        for at in reversed(range(self._begun(tracker))):  # a kind's latest are the missed
            event = self.truth[at]
            key = _key(event, turns[at])
            if missing[key] <= 0:
                continue
            missing[key] -= 1
            if self.done[at] > late:
                continue  # not done yet, or only just: the camera may still see it
            after = self._after(tracker, at)
            try:
                tracker.missed(event, after)
            except EngineError as error:
                if "revealed" not in str(error):
                    continue  # not what the game can take there: a token numbered otherwise
                # Totemic Call: the page asks which cards it turned over, in order
                event = event.model_copy(update={"revealed": self._turned_over(at)})
                try:
                    tracker.missed(event, after)
                except EngineError:
                    continue
            self.taps += FIX_TAPS + _own_taps(event)
            self.fixes += 1
            return True
        return False

    def _turned_over(self, at: int) -> list[str]:
        """The cards truth's event `at` turned over from the top of the deck (a Totemic
        Call), as the players saw them: the deck before it, less the deck after it."""
        game = Game()
        for event in self.truth[:at]:
            game.apply(event)
        before = list(game.table.deck)
        game.apply(self.truth[at])
        after = list(game.table.deck)
        taken = next(k for k in range(len(before) + 1) if after[:len(before) - k] == before[k:])
        return before[:taken]

    def _after(self, tracker: LiveTracker, at: int) -> int:
        """The log's event that truth's event `at` came right after: the nearest event
        before it the log has (the same turn's, or the turn's end before it)."""
        kinds = (*SEEN, "end_turn")
        logged = [(i, event_key(e)) for i, e in enumerate(tracker.events) if e.type in kinds]
        told = [event_key(e) for e in self.truth[:at] if e.type in kinds]
        for back in reversed(range(len(told))):
            nth = told[:back + 1].count(told[back])  # its n-th of a kind, in the log too
            found = [i for i, k in logged if k == told[back]]
            if len(found) >= nth:
                return found[nth - 1]
        first = next((i for i, _ in logged), len(tracker.events))
        return first - 1  # before the first turn's events: after the mulligans

    def _named(self, event: Event, turn: int, missing: Counter) -> Play | None:
        """What a misread play really was (card, target, choice): a play by the same
        player in the same turn that happened and is not in the log."""
        if event.type != "play":
            return None
        for truth, when in zip(self.truth, _turns(self.truth), strict=True):
            if isinstance(truth, Play) and _key(truth, when) in missing and when == turn \
                    and truth.player == event.player and truth.card != event.card:
                return truth
        return None


def _own_taps(event: Event) -> int:
    """The taps the action bar takes to record `event`: a card is its rank and suit; an
    attack, its attacker and target; a target or a Choose One choice, one more each."""
    taps = {"play": 2, "attack": 2, "hero_power": 0, "secret_revealed": 2}[event.type]
    taps += len(getattr(event, "revealed", None) or ()) + bool(getattr(event, "revealed", None))
    if event.type != "attack":
        target = getattr(event, "target", None)
        taps += len(target) if isinstance(target, list) else target is not None
        taps += getattr(event, "choice", None) is not None
    return taps


def _in_order(option: list[Event], turn: int, happened: list[str]) -> bool:
    """The option's events came in this order: a player reads an option as a whole, and
    "attacks with the sword, then draws the sword" is not what happened."""
    rest = iter(happened)
    return all(_key(event, turn) in rest for event in option)


def _turns(events: list[Event]) -> list[int]:
    """Each event's turn: the ends of turn before it. Players check a play against the
    turn it was made in: the right card in the wrong turn spends the wrong mana."""
    turns, ended = [], 0
    for event in events:
        turns.append(ended)
        ended += event.type == "end_turn"
    return turns


def _key(event: Event, turn: int) -> str:
    return f"{turn} {event_key(event)}"
