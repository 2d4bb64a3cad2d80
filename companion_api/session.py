"""The table the server keeps: one game at a time, its log on disk, the questions waiting
for an answer, and the state every client is shown.

One engine a game. Without a camera the session's `Game` applies the phone's events. With a
camera the camera's tracker applies them, and `follow` takes the tracker's game as the
truth: the log on disk keeps what both share and gains what is new, appended; it is written
again whole only when the camera's history changed (a view explained again, an answer).

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
from typing import TYPE_CHECKING, Any

from cards import BACK, DECK, JOKER
from tracker.camera import MISSABLE, Fixes, Question
from tracker.rules import (
    HERO_POWER_COST,
    PLAYERS,
    Attack,
    Concede,
    EngineError,
    Event,
    Game,
    GameState,
    NewGame,
    Play,
    all_heroes,
    answers,
    card_cost,
    card_plays,
    characters,
    describe_event,
    due_secrets,
    face_down_words,
    minion_names,
    outcome,
    parse_card,
    power_uses,
    reactions,
    reveal_before_last,
    when_due,
)

from .store import DataFolder, StoredLog, StoreError

if TYPE_CHECKING:
    from tracker.camera import CameraUpdate

RECENT = 8  # lines of narration in the state
CARDS = (*DECK, JOKER)


class Refused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass(frozen=True)
class Limits:
    max_events: int = 5000  # a real game has a few hundred


def narration(game: Game, count: int = RECENT) -> list[str]:
    """A line about each of the game's last `count` events, oldest first: each told from
    the game as it stood just after it, and what it did from the states on either side (a
    copy taken back before them, then forward through them).
    Every page shows these lines: a secret set is told face down ("p1 sets a secret")."""
    count = min(count, len(game.events))
    view = game.copy()
    events = view.events[len(view.events) - count:]
    view.undo_to(len(view.events) - count)
    before, lines = (view.state() if view.table is not None else None), []
    for event in events:
        rattles = _rattles(view, before) if before is not None else frozenset()
        view.apply(event)
        after = view.state()
        names = minion_names(*(s for s in (before, after) if s is not None))
        # (an event that begins the game from the mulligans, as in a log without them, is
        # made in turn 1: "[turn 1] turn ends", not "[turn 0]")
        line = describe_event(view, event, hide_secrets=True, names=names,
                              turn=max(before.turn, 1) if before is not None else None)
        did = outcome(before, after, rattles) if before is not None else ""
        lines.append(f"{line}: {did}" if did else line)
        before = after
    return lines


def _rattles(game: Game, state: GameState) -> frozenset[str]:
    """The minions and weapons of a state whose death sets off a Deathrattle."""
    return frozenset(
        card for player, side in state.players.items()
        for card in [*(m.card for m in side.minions), side.weapon and side.weapon.card]
        if card and game.ability_of(player, card).hook("deathrattle"))


def never_set(game: Game, event: Event) -> None:
    """Refused (409): a secret revealed that its player never set (or that is no secret of
    their hero). Other plays against the rules are kept with their alert, for they happened
    at the table; this one cannot have: no card was lying face down to turn over."""
    if event.type == "secret_revealed":
        never = [a for a in game.check(event) if a.code == "not_a_secret"]
        if never:
            raise Refused(409, f"{never[0].message}: only a secret that was set can be "
                               "revealed")


def _due_first(moves: list[Event], game: Game) -> tuple[list[Event], bool]:
    """The secrets that may be revealed: only those the last event sets off (in the order
    they go off) when it sets any off, else every one the rules allow; and whether they
    were the ones set off (those are being turned face up: the page may show them)."""
    due = [d for d in due_secrets(game) if game.is_legal(d)]
    if not due:
        return moves, False
    return [*due, *(m for m in moves if m.type != "secret_revealed")], True


def _shared(mine: list[Event], theirs: list[Event]) -> int:
    """How many events two logs share from the start."""
    for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return index
    return min(len(mine), len(theirs))


class Session:
    def __init__(self, data: DataFolder, limits: Limits = Limits()) -> None:
        self.data, self.limits = data, limits
        self.game_id: str | None = None
        self.game = Game()
        self.questions: dict[int, Question] = {}  # the camera's, by id
        self.fixes: tuple[Fixes, ...] = ()  # the camera's views, with what may replace them
        self.version = 0
        self.camera: str | None = None  # with a live source: ok, lost, frozen, covered, moved
        self.deck: dict | None = None  # the registered deck: {name, in_use}, or None
        self.camera_game: int | None = None  # which of the camera's games is followed
        self.unsaved: str | None = None  # why the game in memory is not all on disk (OSError)
        self.resumed_torn = False
        self.unreadable: str | None = None  # why the stored game in progress was not resumed
        self._summaries: dict[str, dict[str, Any]] = {}
        self._told: list[tuple[int, str]] = []  # the last RECENT events' lines, by index
        # a "when" secret put before the event it answered: (the log's length then, the
        # secret's index, the event as it was told), for undo
        self._late: tuple[int, int, Event] | None = None
        self._resume()
        self._changed(kept=0)

    def _resume(self) -> None:
        """The stored game in progress, if there is one. One that cannot be read or played
        again (a broken line, a file that is no log) starts no game, as a fresh folder
        does: it is kept as it is, listed with its error, and `unreadable` says why (the
        server says it once at start)."""
        try:
            game_id = self.data.current_id()
        except StoreError as error:
            said = " ".join(str(error).splitlines())  # the server's own line: path and all
            self.unreadable = f"{said}; no game is in progress, and a new game can be started"
            return
        if game_id is None:
            return
        try:
            stored = self.data.read(game_id)
            game = self._replayed(stored)
        except StoreError as error:
            said = " ".join(str(error).splitlines())
            self.unreadable = (f"game {game_id} cannot be read ({said}); it is kept as it is, "
                               "and a new game can be started")
            return
        self.game, self.game_id = game, stored.game
        if stored.torn:  # drop the torn line for good, so appends start on a fresh line
            self.data.rewrite(stored.game, stored.events)
            self.resumed_torn = True

    def _replayed(self, stored: StoredLog) -> Game:
        """The stored game played again; StoreError names the line the rules refuse."""
        game = Game()
        for index, event in enumerate(stored.events):
            try:
                game.apply(event)
            except EngineError as error:
                line = stored.lines[index] if index < len(stored.lines) else index + 1
                raise StoreError(f"{self.data.log_path(stored.game)}:{line}: {error}",
                                 f"line {line} cannot be played again") from None
        return game

    # --- what clients are shown ----------------------------------------------------------
    def _changed(self, kept: int | None = None) -> None:
        """Made once a change, while the game is still: pages and sockets read only these.
        `kept`: the events the change left as they were (None: the game did not change)."""
        if kept is not None:
            self._tell(kept)
        self.version += 1
        self.state_json = json.dumps(self.state(), separators=(",", ":"))
        self.message_json = f'{{"type":"state","state":{self.state_json}}}'

    def state(self) -> dict[str, Any]:
        """The state every page is shown, the watchers' too: a secret face down is named
        in no line of it, its alerts' included."""
        state = self.game.state().model_dump(mode="json")
        if self.face_down:
            for alert in state["alerts"]:
                alert["message"] = face_down_words(self.game, alert["message"])
        if self.camera is not None:
            state["camera"] = self.camera
        if self.deck is not None:
            state["registered_deck"] = self.deck
        if self.unsaved is not None:
            state["unsaved"] = self.unsaved
        state.update(version=self.version, game=self.game_id, events=len(self.game.events),
                     recent=[line for _, line in self._told], pending=self.pending(),
                     recent_events=[{"index": index, "camera": self.fix_of(index) is not None}
                                    for index, _ in self._told])
        return state

    def fix_of(self, index: int) -> Fixes | None:
        """The camera's view that event `index` came from, with what may replace it (None:
        the phone's event). A camera event no view explains any longer is its own, and so
        is one the phone added for the camera, which missed it."""
        found = next((f for f in self.fixes if f.covers(index)), None)
        if found is not None or index >= len(self.game.events):
            return found
        event = self.game.events[index]
        if event.source != "camera" and (self.camera is None or event.type not in MISSABLE):
            return None
        alone = event.model_copy(update={"source": None, "confidence": None, "unsure": None})
        return Fixes(index, 1, ((alone,), ()), 0)

    def _tell(self, kept: int) -> None:
        """The last RECENT events' lines: those of the first `kept` events stay as told,
        the others are told afresh (one, in the usual change)."""
        count = len(self.game.events)
        shown = range(max(0, count - RECENT), count)
        told = {index: line for index, line in self._told if index < kept}
        start = min((i for i in shown if i not in told), default=count)
        fresh = narration(self.game, count - start)
        self._told = [(i, told[i] if i < start else fresh[i - start]) for i in shown]

    def pending(self) -> list[dict[str, Any]]:
        return [q.model_dump(mode="json", exclude_none=True) for q in self.questions.values()]

    def log(self) -> list[Event]:
        return list(self.game.events)

    # --- changing the game ---------------------------------------------------------------
    def new_game(self, event: NewGame) -> list:
        try:
            fresh = Game.replay([event])
        except EngineError as error:
            raise Refused(422, str(error)) from None
        self._begin(fresh)
        self._changed(kept=0)
        return []

    def _begin(self, game: Game) -> None:
        """`game` is a new game: a new id, its log written whole."""
        self.game_id, self.unsaved, self.game = self.data.new_id(), None, game
        self._late = None
        self._save()

    def add(self, event: Event) -> list:
        """Apply one event and keep it; the alerts it raised."""
        if isinstance(event, NewGame):
            return self.new_game(event)
        if self.game_id is None or self.game.table is None:
            raise Refused(409, "no game in progress: start one with POST /api/new-game")
        late = answers(self.game, event)  # may undo the end: the attack that killed
        if self.game.over and not late:
            raise Refused(409, f"the game is over ({self._result()}); undo the last event "
                               "or start a new game")
        if len(self.game.events) >= self.limits.max_events:
            raise Refused(409, f"the game holds {self.limits.max_events} events, the most "
                               "one game may; start a new game")
        never_set(self.game, event)
        if late:
            return self._before_last(event)
        try:
            alerts = self.game.apply(event)
        except EngineError as error:
            raise Refused(422, str(error)) from None
        self._save([event])
        self._changed(kept=len(self.game.events) - 1)
        return self._shown(alerts)

    def _before_last(self, reveal: Event) -> list:
        """A "when" secret told after the event it answers goes before it in the log, as it
        went off at the table: the event then goes on as the secret left it (an attack on
        Vaporize's owner by a minion it destroyed never hits), or not at all. Undo takes
        the secret back and puts the event back as it was told."""
        game = self.game
        try:
            alerts, answered, goes_on = reveal_before_last(game, reveal)
        except EngineError as error:
            raise Refused(422, str(error)) from None
        self._late = (len(game.events), len(game.events) - (goes_on is not None) - 1,
                      answered)
        self._save()
        self._changed(kept=self._late[1])
        return self._shown(alerts)

    def _shown(self, alerts: list) -> list:
        """A write's alerts as the public state words them (face-down secrets unnamed)."""
        if not self.face_down:
            return alerts
        return [a.model_copy(update={"message": face_down_words(self.game, a.message)})
                for a in alerts]

    def undo(self) -> Event:
        """Take back the last event; a secret told after the event it answers is taken
        back as it was told: the event it answered comes back as it was."""
        if self.game_id is None or len(self.game.events) <= 1:
            raise Refused(409, "nothing to undo: start a new game instead")
        late = self._late
        if late is not None and len(self.game.events) == late[0] and \
                self.game.events[late[1]].type == "secret_revealed":
            self._late = None
            _, kept, answered = late
            event = self.game.events[kept]
            self.game.undo_to(kept)
            self.game.apply(answered)
        else:
            event = self.game.pop()
            kept = len(self.game.events)
        self._save()
        self._changed(kept=kept)
        return event

    def _save(self, new: list[Event] | None = None) -> None:
        """Keep the game on disk: the `new` events appended to a log that holds the rest,
        else the whole log written again. A disk that cannot take it leaves the game in
        memory."""
        try:
            if new is not None and self.unsaved is None:
                self.data.append(self.game_id, new)
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

    def follow(self, update: CameraUpdate) -> None:
        """The camera's game as its tracker holds it (the one engine of a camera game): the
        log keeps what it shares with the tracker's and gains the rest, appended, or is
        written again whole where the tracker changed its history. A log that starts
        another game starts a new one, and so does a new `game_number` from the camera: a
        new game with the same heroes begins with the same event, and must not overwrite
        the last game's log. The tracker's open choices are the questions."""
        self.camera, self.deck = update.camera, update.deck
        self.questions = {q.id: q for q in update.questions}
        self.fixes = update.fixes
        events, kept = update.game.events, None
        if events and (self.game_id is None or self.camera_game != update.game_number
                       or self.game.events[:1] != events[:1]):
            self.camera_game, kept = update.game_number, 0
            self._begin(update.game)
        elif events:
            kept = _shared(self.game.events, events)
            rewritten = kept < len(self.game.events)
            self.game = update.game
            if rewritten or kept < len(events):
                self._save(None if rewritten else events[kept:])
        self._changed(kept)

    def _result(self) -> str:
        winner = self.game.winner
        return "a draw" if winner == "draw" else f"{winner} won"

    # --- what may be done --------------------------------------------------------------------
    def moves(self, card: str | None = None, player: str | None = None,
              power: bool = False, attacker: str | None = None,
              secrets: bool = True) -> dict[str, Any]:
        """The legal moves now; with a card (or the hero power, or an attacker), every way
        to play it (use it, attack with it), each marked legal or not, with the alerts it
        would raise. Without `secrets` (a watcher, no token), no reveal is listed: each
        names a face-down card. `secrets_due`: the reveals listed are those the last event
        set off, not every one the rules allow."""
        game = self.game
        nothing = {"active": game.active, "phase": game.phase, "moves": [], "cards": [],
                   "options": []}
        if game.table is None:
            return nothing
        player = player or game.active
        viewer = player if secrets else None  # whose own face-down secrets may be named
        rng = random.Random(self.version)
        head = {"active": game.active, "phase": game.phase, "player": player}
        if card is not None:
            try:
                info = self.card_info(player, card, viewer)
            except EngineError as error:  # a rank alone where its suits are other cards
                raise Refused(422, str(error)) from None
            return {**head, **info, "options": [] if game.over else self._options(
                card_plays(game, player, card, rng), self._seen_by(viewer, card))}
        if game.over:  # only a secret the blow that ended it set off, which may stop it
            late = when_due(game) if secrets else []
            return {**nothing, "secrets_due": bool(late), "moves": [
                m.model_dump(mode="json", exclude_none=True) for m in late]}
        if attacker is not None:
            everyone = characters(game)
            if attacker not in everyone:
                raise Refused(422, f"{attacker} is not on the table: it cannot attack")
            return {**head, "attacker": attacker, "options": self._options(
                [Attack(attacker=attacker, target=t) for t in everyone if t != attacker])}
        if power:
            ability = game.sides[player].hero.power
            return {**head, "name": ability.name, "kind": "power", "cost": HERO_POWER_COST,
                    "text": ability.text, "options": self._options(power_uses(game, player, rng))}
        moves = [m for m in game.legal_moves(rng) if not isinstance(m, Play)]
        others, due = _due_first([m for m in reactions(game)
                                  if isinstance(m, Concede) or game.is_legal(m)], game)
        moves += [m for m in others if secrets or m.type != "secret_revealed"]
        playable = [c["card"] for c in self._cards(player, viewer) if c["legal"]]
        return {**head, "moves": [m.model_dump(mode="json", exclude_none=True,
                                               exclude={"source"}) for m in moves],
                "cards": playable, "secrets_due": due and secrets}

    def _options(self, events: list[Event], game: Game | None = None) -> list[dict[str, Any]]:
        """Each event with the alerts it would raise in `game` (the game itself, or the
        game as a player sees it: `_seen_by`)."""
        game = game or self.game
        options = []
        for event in events:
            alerts = game.check(event)
            options.append({"event": event.model_dump(mode="json", exclude_none=True),
                            "legal": not any(a.severity == "illegal" for a in alerts),
                            "alerts": [a.message for a in alerts]})
        return options

    def overlay_secrets(self) -> dict[str, list[dict[str, Any]]]:
        """Both players' secrets, face up, for the overlay of a delayed stream."""
        if self.game.table is None:
            return {p: [] for p in PLAYERS}
        return {p: self.secrets(p)["secrets"] for p in PLAYERS}

    @property
    def face_down(self) -> bool:
        """Whether a secret lies set, unrevealed, in the game in progress: its log names
        it."""
        game = self.game
        return game.table is not None and not game.over and any(
            side.secrets for side in game.sides.values())

    def secrets(self, player: str) -> dict[str, Any]:
        """The secrets `player` has set, face up: for that player's eyes only (a peek)."""
        game = self.game
        if game.table is None:
            raise Refused(409, "no game in progress: there is no secret to look at")
        cards = game.sides[player].secrets
        return {"player": player, "secrets": [
            {"card": card, "name": game.ability_of(player, card).name} for card in cards]}

    def _face_down_to(self, viewer: str | None, card: str) -> bool:
        """`card` lies face down as a secret of a player other than `viewer` (None: a
        watcher, to whom every secret is face down)."""
        return any(card in side.secrets for owner, side in self.game.sides.items()
                   if owner != viewer)

    def _seen_by(self, viewer: str | None, card: str) -> Game:
        """The game as `viewer` may know it when naming `card`: where it lies face down as
        another player's secret, that secret is a card's back (the name would say which
        secret it is, where `viewer` could not hold that card)."""
        if not self._face_down_to(viewer, card):
            return self.game
        seen = self.game.copy()
        for owner, side in seen.sides.items():
            if owner != viewer:
                side.secrets = [BACK if c == card else c for c in side.secrets]
        return seen

    def card_info(self, player: str, card: str, viewer: str | None) -> dict[str, Any]:
        """What `card` is for `player`, and where it lies as far as `viewer` may know (a
        secret of another player's, face down, lies nowhere they know of)."""
        ability = self.game.ability_of(player, card)
        if card != JOKER and parse_card(card).is_minion:
            stats = parse_card(card).stats
            kind = "minion"
            name = ability.name or {"H": "Taunt", "D": "Spell Damage +1",
                                    "C": "Stealth"}[card[-1]]
            text = ability.text or f"a {stats}/{stats} minion with {name}"
        else:
            kind, name, text = ability.kind, ability.name, ability.text
        place = None if self._face_down_to(viewer, card) else self.game.table.where(card)
        return {"card": card, "name": name, "kind": kind, "cost": card_cost(card),
                "text": text, "place": place}

    def _cards(self, player: str, viewer: str | None) -> list[dict[str, Any]]:
        found = []
        for card in CARDS:
            plays = card_plays(self.game, player, card, random.Random(self.version))
            seen = self._seen_by(viewer, card)
            found.append({"card": card, "legal": any(seen.is_legal(p) for p in plays)})
        return found

    # --- games kept ---------------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        found = (self._summary(game) for game in self.data.game_ids())
        return [summary for summary in found if summary is not None]

    def _summary(self, game: str) -> dict[str, Any] | None:
        """A kept game in a few words (None: its file went meanwhile). One that cannot be
        read says why in `error`, naming the line, never quoting the file."""
        try:
            found = self.data.log_path(game).lstat()
        except OSError:
            return None
        stamp = (found.st_ino, found.st_mtime_ns, found.st_size)
        cached = self._summaries.get(game)
        if cached is None or cached["_stamp"] != stamp:
            try:
                stored = self.data.read(game)
                events, state = stored.events, self._replayed(stored).state()
                cached = {"id": game, "events": len(events), "turn": state.turn,
                          "over": state.over, "winner": state.winner,
                          "heroes": {p: state.players[p].hero for p in PLAYERS}
                          if state.players else {}, "error": None}
            except StoreError as error:
                cached = {"id": game, "events": 0, "turn": 0, "over": False, "winner": None,
                          "heroes": {}, "error": f"game {game} cannot be read: "
                                                 f"{error.reason or 'a damaged file'}"}
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

