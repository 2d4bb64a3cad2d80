"""The table the server keeps: one game at a time, its log on disk, the questions waiting
for an answer, and the state every client is shown.

All methods are plain and synchronous; the app calls them one at a time (under its lock).
A refused request raises `Refused` with an HTTP status and one sentence, and changes
nothing: an event the engine cannot apply is refused before anything is written.

A disk that cannot keep the log (full, gone) does not stop the game: play goes on in memory,
the state says why the game is not being saved (`unsaved`), and the whole log is written
again at the next change or `save_again`, once there is room; what was saved stays saved.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from cards import DECK, JOKER
from tracker.cards import PLAYERS, card_cost, parse_card
from tracker.engine import EngineError, Game
from tracker.events import Concede, Event, NewGame, Play
from tracker.heroes import all_heroes
from tracker.legality import card_plays, power_uses, reactions
from tracker.narrate import describe_event
from tracker.questions import Answer, Question
from tracker.table import HERO_POWER_COST

from .store import DataFolder, StoreError

RECENT = 8  # lines of narration in the state
CARDS = (*DECK, JOKER)


class Refused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass(frozen=True)
class Limits:
    max_events: int = 5000  # a real game has a few hundred
    max_questions: int = 50


def _replayed(events: list[Event]) -> tuple[Game, list[str]]:
    game, lines = Game(), []
    for event in events:
        game.apply(event)
        lines.append(describe_event(game, event))
    return game, lines


class Session:
    def __init__(self, data: DataFolder, limits: Limits = Limits()) -> None:
        self.data, self.limits = data, limits
        self.game_id: str | None = None
        self.game = Game()
        self.recent: list[str] = []  # one line about each event, in order
        self.questions: dict[int, Question] = {}
        self.version = 0
        self.camera: str | None = None  # with a live source: ok, lost, frozen, covered, moved
        self.deck: dict | None = None  # the registered deck: {name, in_use}, or None
        self.mirrored: int | None = None  # which of the live source's games is mirrored
        self.unsaved: str | None = None  # why the game in memory is not all on disk (OSError)
        self.resumed_torn = False
        self._next_question = 1
        self._summaries: dict[str, dict[str, Any]] = {}
        self._resume()
        self._changed()

    def _resume(self) -> None:
        stored = self.data.current()
        if stored is None:
            return
        try:
            self.game, self.recent = _replayed(stored.events)
        except EngineError as error:
            raise StoreError(f"{self.data.log_path(stored.game)}: {error}") from None
        self.game_id = stored.game
        if stored.torn:  # drop the torn line for good, so appends start on a fresh line
            self.data.rewrite(stored.game, stored.events)
            self.resumed_torn = True

    # --- what clients are shown ----------------------------------------------------------
    def _changed(self) -> None:
        """Made once a change, while the game is still: pages and sockets read only these."""
        self.version += 1
        self.state_json = json.dumps(self.state(), separators=(",", ":"))
        self.message_json = f'{{"type":"state","state":{self.state_json}}}'

    def state(self) -> dict[str, Any]:
        state = self.game.state().model_dump(mode="json")
        if self.camera is not None:
            state["camera"] = self.camera
        if self.deck is not None:
            state["registered_deck"] = self.deck
        if self.unsaved is not None:
            state["unsaved"] = self.unsaved
        state.update(version=self.version, game=self.game_id, events=len(self.game.events),
                     recent=self.recent[-RECENT:],
                     pending=self.pending())
        return state

    def pending(self) -> list[dict[str, Any]]:
        return [q.model_dump(mode="json", exclude_none=True) for q in self.questions.values()]

    def log(self) -> list[Event]:
        return list(self.game.events)

    # --- changing the game ---------------------------------------------------------------
    def new_game(self, event: NewGame) -> list:
        try:
            fresh, lines = _replayed([event])
        except EngineError as error:
            raise Refused(422, str(error)) from None
        self.game_id, self.unsaved = self.data.new_id(), None
        self.game, self.recent = fresh, lines
        self.questions = {}
        self._save()
        self._changed()
        return []

    def add(self, event: Event) -> list:
        """Apply one event and keep it; the alerts it raised."""
        if isinstance(event, NewGame):
            return self.new_game(event)
        if self.game_id is None or self.game.table is None:
            raise Refused(409, "no game in progress: start one with POST /api/new-game")
        if self.game.over:
            raise Refused(409, f"the game is over ({self._result()}); undo the last event "
                               "or start a new game")
        if len(self.game.events) >= self.limits.max_events:
            raise Refused(409, f"the game holds {self.limits.max_events} events, the most "
                               "one game may; start a new game")
        try:
            alerts = self.game.apply(event)
        except EngineError as error:
            raise Refused(422, str(error)) from None
        self._save(event)
        self.recent.append(describe_event(self.game, event))
        self._changed()
        return alerts

    def undo(self) -> Event:
        if self.game_id is None or len(self.game.events) <= 1:
            raise Refused(409, "nothing to undo: start a new game instead")
        event = self.game.pop()
        self.recent.pop()
        self._save()
        self._changed()
        return event

    def _save(self, event: Event | None = None) -> None:
        """Keep the game on disk: `event` appended to a log that holds the rest, else the
        whole log written again. A disk that cannot take it leaves the game in memory."""
        try:
            if event is not None and self.unsaved is None:
                self.data.append(self.game_id, event)
            else:
                self.data.save(self.game_id, self.game.events)
        except OSError as error:
            self.unsaved = error.strerror or str(error)  # the system's words: the pages say it
        else:
            self.unsaved = None

    def save_again(self) -> None:
        """Try again to write a game the disk could not keep (the app calls this often)."""
        if self.unsaved is not None and self.game_id is not None:
            self._save()
            if self.unsaved is None:
                self._changed()

    def mirror(self, events: list[Event], camera: str | None = None,
               choices: list | None = None, game: int | None = None,
               deck: dict | None = None) -> None:
        """Make the log `events` (the live tracker's): what both share is kept, what the
        tracker took back is undone, what it added is added. A log that starts another
        game starts a new one, and so does a new `game` number from the source: a new game
        with the same heroes begins with the same event, and undoing the last game down to
        it would overwrite that game's log. The tracker's open choices are the questions;
        `deck`, the registered deck's name and whether it reads the cards, is shown."""
        questions = {c.id: Question(id=c.id, prompt="The camera could not tell which "
                                    "happened; the first is in the score now:",
                                    options=[{"label": label[:200]} for label in c.labels])
                     for c in choices or []}
        if camera != self.camera or questions != self.questions or deck != self.deck:
            self.camera, self.questions, self.deck = camera, questions, deck
            self._changed()
        if not events:
            return
        if self.game_id is None or self.game.events[:1] != events[:1] or game != self.mirrored:
            self.new_game(events[0])
            self.questions, self.mirrored = questions, game
        shared = 0
        for mine, theirs in zip(self.game.events, events, strict=False):
            if mine != theirs:
                break
            shared += 1
        while len(self.game.events) > max(shared, 1):
            self.undo()
        for event in events[len(self.game.events):]:
            try:
                self.add(event)
            except Refused:  # after the end of the game, as a rewritten log may have it
                break

    def _result(self) -> str:
        winner = self.game.winner
        return "a draw" if winner == "draw" else f"{winner} won"

    # --- questions -------------------------------------------------------------------------
    def ask(self, prompt: str, options: list[dict[str, Any]], default: int = 0) -> Question:
        """Put a question to the phones (the tracker's side of the exchange)."""
        if len(self.questions) >= self.limits.max_questions:
            oldest = min(self.questions)
            try:
                self.answer(oldest, Answer(option=self.questions[oldest].default))
            except Refused:  # its default no longer fits the table: nobody can answer it
                del self.questions[oldest]
        question = Question(id=self._next_question, prompt=prompt, options=options,
                            default=default)
        self._next_question += 1
        self.questions[question.id] = question
        self._changed()
        return question

    def answer(self, question_id: int, answer: Answer) -> list:
        question = self.questions.get(question_id)
        if question is None:
            raise Refused(404, f"there is no open question {question_id}")
        if answer.option >= len(question.options):
            raise Refused(422, f"question {question_id} has {len(question.options)} options "
                               f"(0 to {len(question.options) - 1})")
        if self.game.table is None:
            raise Refused(409, "no game in progress: start one with POST /api/new-game")
        kept, version, alerts = len(self.game.events), self.version, []
        try:
            for event in question.options[answer.option].events:
                alerts += self.add(event)
        except Refused:  # all of the option's events or none; no page saw the ones between
            while len(self.game.events) > kept:
                self.undo()
            self.version = version - 1
            self._changed()
            raise
        del self.questions[question_id]
        self._changed()
        return alerts

    # --- what may be done --------------------------------------------------------------------
    def moves(self, card: str | None = None, player: str | None = None,
              power: bool = False) -> dict[str, Any]:
        """The legal moves now; with a card (or the hero power), every way to play it (use
        it), each marked legal or not, with the alerts it would raise."""
        game = self.game
        if game.table is None or game.over:
            return {"active": game.active, "phase": game.phase, "moves": [], "cards": [],
                    "options": []}
        player = player or game.active
        rng = random.Random(self.version)
        head = {"active": game.active, "phase": game.phase, "player": player}
        if card is not None:
            return {**head, **self.card_info(player, card),
                    "options": self._options(card_plays(game, player, card, rng))}
        if power:
            ability = game.sides[player].hero.power
            return {**head, "name": ability.name, "kind": "power", "cost": HERO_POWER_COST,
                    "text": ability.text, "options": self._options(power_uses(game, player, rng))}
        moves = [m for m in game.legal_moves(rng) if not isinstance(m, Play)]
        moves += [m for m in reactions(game) if isinstance(m, Concede) or game.is_legal(m)]
        playable = [c["card"] for c in self._cards(player) if c["legal"]]
        return {**head, "moves": [m.model_dump(mode="json", exclude_none=True,
                                               exclude={"source"}) for m in moves],
                "cards": playable}

    def _options(self, events: list[Event]) -> list[dict[str, Any]]:
        options = []
        for event in events:
            alerts = self.game.check(event)
            options.append({"event": event.model_dump(mode="json", exclude_none=True),
                            "legal": not any(a.severity == "illegal" for a in alerts),
                            "alerts": [a.message for a in alerts]})
        return options

    def card_info(self, player: str, card: str) -> dict[str, Any]:
        ability = self.game.ability_of(player, card)
        if card != JOKER and parse_card(card).is_minion:
            stats = parse_card(card).stats
            kind = "minion"
            name = ability.name or {"H": "Taunt", "D": "Spell Damage +1",
                                    "C": "Stealth"}[card[-1]]
            text = ability.text or f"a {stats}/{stats} minion with {name}"
        else:
            kind, name, text = ability.kind, ability.name, ability.text
        return {"card": card, "name": name, "kind": kind, "cost": card_cost(card),
                "text": text, "place": self.game.table.where(card)}

    def _cards(self, player: str) -> list[dict[str, Any]]:
        found = []
        for card in CARDS:
            plays = card_plays(self.game, player, card, random.Random(self.version))
            found.append({"card": card,
                          "legal": any(self.game.is_legal(p) for p in plays)})
        return found

    # --- games kept ---------------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        return [self._summary(game) for game in self.data.game_ids()]

    def _summary(self, game: str) -> dict[str, Any]:
        path = self.data.log_path(game)
        stamp = (path.stat().st_mtime, path.stat().st_size)
        cached = self._summaries.get(game)
        if cached is None or cached["_stamp"] != stamp:
            try:
                events = self.data.read(game).events
                replayed, _ = _replayed(events)
                state = replayed.state()
                cached = {"id": game, "events": len(events), "turn": state.turn,
                          "over": state.over, "winner": state.winner,
                          "heroes": {p: state.players[p].hero for p in PLAYERS}
                          if state.players else {}, "error": None}
            except (StoreError, EngineError) as error:
                cached = {"id": game, "events": 0, "turn": 0, "over": False, "winner": None,
                          "heroes": {}, "error": str(error)}
            cached["_stamp"] = stamp
            self._summaries[game] = cached
        summary = {k: v for k, v in cached.items() if k != "_stamp"}
        summary["current"] = game == self.game_id
        return summary

    def hero_list(self) -> list[dict[str, str]]:
        return [{"key": key, "name": hero.name, "class": hero.hero_class,
                 "power": hero.power.name, "power_text": hero.power.text,
                 "spade": hero.spade.name, "spade_text": hero.spade.text}
                for key, hero in sorted(all_heroes().items())]

