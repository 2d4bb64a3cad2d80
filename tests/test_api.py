"""The companion server end to end: a real uvicorn on loopback (`ThreadServer`), httpx and
the `websockets` package as its clients.

A short game through the API matches a replay of the log it hands out; alerts come back
with the event that raised them; the moves offered are legal; questions are answered
through it. Every bad request is a 4xx with one sentence and leaves the game as it was
(the state, the log, the log on disk) while a WebSocket client keeps getting updates; a
client that never reads, one that floods writes and one that sends garbage frames hurt
nobody else.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from live_server import HANG_S, LiveServer, ThreadServer, recorded_camera, wait_for_camera
from pydantic import ValidationError
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from companion_api.app import ServerLimits
from companion_api.cli import replay_log
from companion_api.session import Limits
from companion_api.store import DataFolder
from tracker.camera.questions import Option
from tracker.rules.engine import Game
from tracker.rules.events import parse_event

DEMO = Path(__file__).resolve().parents[1] / "tests" / "data" / "demo_game.jsonl"
DEMO_EVENTS = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
HEROES = DEMO_EVENTS[0]["heroes"]
DECK = DEMO_EVENTS[0]["deck"]
PROMPT = HANG_S  # seconds: a bound on a hang; every wait ends once the server says it


# --- helpers ---------------------------------------------------------------------------------
def ws_url(live: LiveServer) -> str:
    return live.url.replace("http://", "ws://", 1) + "/ws"


class Watcher:
    """A WebSocket client reading in a thread of its own; keeps every state it receives."""

    def __init__(self, live: LiveServer, **options) -> None:
        self.ws: ClientConnection = connect(ws_url(live), open_timeout=PROMPT,
                                               legacy=True, **options)
        self.states: list[dict] = []
        self.closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for message in self.ws:
                parsed = json.loads(message)
                assert parsed["type"] == "state"
                with self._cond:
                    self.states.append(parsed["state"])
                    self._cond.notify_all()
        except Exception:  # a closed socket ends the reader, nothing more
            pass
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = PROMPT) -> dict:
        """The first state received that satisfies `predicate`, waiting if need be."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for state in self.states[seen:]:
                    if predicate(state):
                        return state
                seen = len(self.states)
                left = deadline - time.monotonic()
                assert left > 0 and not self.closed, (
                    f"no matching state within {timeout} s (closed: {self.closed}, "
                    f"last version: {self.states[-1]['version'] if self.states else None})")
                self._cond.wait(left)

    def wait_version(self, version: int, timeout: float = PROMPT) -> dict:
        return self.wait_for(lambda s: s["version"] >= version, timeout)

    def close(self) -> None:
        self.ws.close()
        self._thread.join(PROMPT)


class Quick(LiveServer):
    """`LiveServer` over one kept-alive httpx client: a fresh client a request costs some
    20 ms (its TLS context), which a test of many requests feels."""

    client: httpx.Client

    def post(self, path: str, body: dict | None = None, **kwargs) -> httpx.Response:
        return self.client.post(self.url + path, json=body,
                                headers={"Authorization": f"Bearer {self.token}"}, **kwargs)

    def get(self, path: str, **kwargs) -> httpx.Response:
        return self.client.get(self.url + path, **kwargs)


@contextlib.contextmanager
def serve(data: Path, **options) -> Iterator[Quick]:
    """A `ThreadServer` whose requests go through one kept-alive client."""
    server = ThreadServer(data, **options)
    server.live = Quick(server.live.url, server.live.token, server.live.app)
    with server as live, httpx.Client(timeout=PROMPT) as client:
        live.client = client
        yield live


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Quick]:
    with serve(tmp_path) as server:
        yield server


@pytest.fixture
def watcher(live: LiveServer) -> Iterator[Watcher]:
    client = Watcher(live)
    yield client
    client.close()


def one_sentence(response: httpx.Response) -> str:
    """The contract's error: `{"detail": SENTENCE}` and nothing else."""
    assert response.headers["content-type"].startswith("application/json"), response.text
    body = response.json()
    assert set(body) == {"detail"}, body
    detail = body["detail"]
    assert isinstance(detail, str) and detail.strip(), body
    assert "\n" not in detail and "Traceback" not in detail and len(detail) < 400, detail
    return detail


def new_game(live: LiveServer, heroes: dict | None = None, deck: list | None = DECK) -> dict:
    body = {"heroes": heroes or HEROES} | ({"deck": deck} if deck else {})
    response = live.post("/api/new-game", body)
    assert response.status_code == 200, response.text
    return response.json()["state"]


def state(live: LiveServer) -> dict:
    response = live.get("/api/state")
    assert response.status_code == 200
    return response.json()


def snapshot(live: LiveServer) -> tuple:
    """Everything a request could change: the state, the log, and the log on disk."""
    now = state(live)
    log = live.get("/api/log").json()
    kept = live.get(f"/api/games/{now['game']}/log.jsonl").text if now["game"] else None
    return now, log, kept, live.get("/api/games").json()


def bare(event: dict) -> dict:
    """A demo event as a phone would post it: no source (the server marks it `phone`)."""
    return {k: v for k, v in event.items() if k != "source"}


def post_raw(live: Quick, path: str, content, *, token: str | None = "ok",
             headers: dict | None = None) -> httpx.Response:
    sent = {"content-type": "application/json", **(headers or {})}
    if token == "ok":
        sent["authorization"] = f"Bearer {live.token}"
    elif token is not None:
        sent["authorization"] = f"Bearer {token}"
    return live.client.post(live.url + path, content=content, headers=sent)


def replayed_state(live: LiveServer, tmp_path: Path) -> dict:
    """The state `replay` computes from the log the server hands out."""
    response = live.get("/api/log.jsonl")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    path = tmp_path / "downloaded.jsonl"
    path.write_bytes(response.content)
    return replay_log(path).state().model_dump(mode="json")


# --- a game through the API ----------------------------------------------------------------
def test_a_short_game_matches_the_replay_of_its_log(live, watcher, tmp_path):
    """new-game, mulligans, plays, an attack, hero powers, end_turn and an undo."""
    first = new_game(live)
    assert first["phase"] == "mulligan" and first["events"] == 1
    played = DEMO_EVENTS[1:18]  # mulligans, plays, attack, hero powers, end_turns
    assert {e["type"] for e in played} >= {"mulligan", "play", "attack", "hero_power",
                                           "end_turn"}
    for event in played:
        if event["type"] == "attack":  # undo it once: the game is back as it was
            before = state(live)
            live.event(**bare(event))
            undone = live.post("/api/undo")
            assert undone.status_code == 200 and undone.json()["raised"] == []
            after = undone.json()["state"]
            assert after["version"] > before["version"]
            assert {k: v for k, v in after.items() if k not in ("version", "recent")} == {
                k: v for k, v in before.items() if k not in ("version", "recent")}
        answer = live.event(**bare(event)).json()
        assert answer["raised"] == []  # the demo is a legal game
    final = state(live)
    assert final["events"] == 1 + len(played)
    assert final["turn"] >= 4 and not final["over"]

    log = live.get("/api/log").json()
    assert log["game"] == final["game"]
    assert [bare(e) for e in log["events"][1:]] == [bare(e) for e in played]
    assert {e["source"] for e in log["events"]} == {"phone"}

    replayed = replayed_state(live, tmp_path)
    assert {k: final[k] for k in replayed} == replayed
    # the contract's extra fields, and the last state on the socket is the same
    assert final["pending"] == [] and len(final["recent"]) > 0
    assert watcher.wait_version(final["version"]) == final


def test_an_illegal_event_is_recorded_with_its_alert(live, watcher, tmp_path):
    new_game(live)
    for event in DEMO_EVENTS[1:3]:
        live.event(**bare(event))
    # turn 1, p1 has 1 mana: a 5-cost minion it does not hold is twice illegal
    answer = live.event("play", player="p1", card="5H").json()
    raised = answer["raised"]
    assert raised and all(a["severity"] in ("illegal", "warning") for a in raised)
    assert {a["code"] for a in raised} >= {"not_enough_mana"}
    assert all(a["event"] == 3 for a in raised)
    now = answer["state"]
    assert now["events"] == 4 and all(a in now["alerts"] for a in raised)
    assert live.get("/api/log").json()["events"][-1] == {
        "type": "play", "player": "p1", "card": "5H", "source": "phone"}
    assert replayed_state(live, tmp_path)["alerts"] == now["alerts"]
    assert watcher.wait_version(now["version"])["alerts"] == now["alerts"]
    # a legal event raises nothing
    assert live.event("end_turn").json()["raised"] == []


def test_moves_lists_only_legal_events(live):
    new_game(live)
    checked = 0
    for number, event in enumerate(DEMO_EVENTS[1:60], 1):
        if number % 3 != 1:
            live.event(**bare(event))
            continue
        moves = live.get("/api/moves")
        assert moves.status_code == 200
        offered = moves.json()
        game = Game.replay(parse_event(e) for e in live.get("/api/log").json()["events"])
        assert offered["active"] == game.active and offered["phase"] == game.phase
        assert offered["moves"], "some move is always legal in a game in progress"
        for move in offered["moves"]:
            assert game.is_legal(parse_event(move)), move
            checked += 1
        for card in offered["cards"]:
            options = live.get("/api/moves", params={"card": card}).json()["options"]
            assert any(o["legal"] for o in options), card
        live.event(**bare(event))
    assert checked > 100


def test_moves_of_a_card_mark_legality(live):
    new_game(live)
    for event in DEMO_EVENTS[1:3]:
        live.event(**bare(event))
    game = Game.replay(parse_event(e) for e in live.get("/api/log").json()["events"])
    playable = live.get("/api/moves").json()["cards"]
    assert playable
    for card in ["5H", "9S", "JK", playable[0], playable[-1]]:
        response = live.get("/api/moves", params={"card": card.lower()})
        assert response.status_code == 200, response.text
        shown = response.json()
        assert shown["card"] == card and shown["options"]
        for option in shown["options"]:
            assert option["legal"] == game.is_legal(parse_event(option["event"]))
            assert option["legal"] or option["alerts"]
        assert any(o["legal"] for o in shown["options"]) == (card in playable)
    # 5H is still in the draw deck, and costs 5 on turn 1: shown, marked illegal, with why
    five = live.get("/api/moves?card=5H").json()["options"]
    assert not any(o["legal"] for o in five) and "5H" in five[0]["alerts"][0]
    bad = live.get("/api/moves?card=ZZ")
    assert bad.status_code == 422 and "ZZ" in one_sentence(bad)
    assert live.get("/api/moves?player=p3").status_code == 422


def test_moves_of_the_hero_power_mark_legality(live):
    new_game(live, {"p1": "jaina", "p2": "garrosh"}, deck=None)
    live.event("mulligan", player="p1", count=0)
    live.event("end_turn")  # p2's turn 2: 1 crystal
    live.event("end_turn")  # p1's turn 3: 2 crystals
    game = Game.replay(parse_event(e) for e in live.get("/api/log").json()["events"])
    fireblast = live.get("/api/moves", params={"power": "true"}).json()
    assert fireblast["name"] == "Fireblast" and fireblast["cost"] == 2
    assert {o["event"]["target"] for o in fireblast["options"]} == {"p1", "p2"}
    for option in fireblast["options"]:
        assert option["legal"] == game.is_legal(parse_event(option["event"])) is True
    armor = live.get("/api/moves", params={"power": "true", "player": "p2"}).json()
    assert armor["name"] == "Armor Up!" and len(armor["options"]) == 1
    assert not armor["options"][0]["legal"]
    assert "during p1's turn" in armor["options"][0]["alerts"][0]


def test_moves_of_an_attacker_say_why_each_target_is_against_the_rules(live):
    new_game(live, {"p1": "jaina", "p2": "garrosh"}, deck=None)
    for event in ({"type": "mulligan", "player": "p1", "count": 0},
                  {"type": "end_turn"}, {"type": "play", "player": "p2", "card": "6D"},
                  {"type": "end_turn"}, {"type": "play", "player": "p1", "card": "6H"},
                  {"type": "end_turn"}):
        live.event(**event)
    game = Game.replay(parse_event(e) for e in live.get("/api/log").json()["events"])
    shown = live.get("/api/moves", params={"attacker": "6D"}).json()
    assert shown["attacker"] == "6D"
    assert {o["event"]["target"] for o in shown["options"]} == {"p1", "p2", "6H"}
    for option in shown["options"]:
        assert option["legal"] == game.is_legal(parse_event(option["event"]))
    why = {o["event"]["target"]: o["alerts"] for o in shown["options"]}
    assert "past Taunt (6H)" in why["p1"][0] and why["6H"] == []
    for bad, says in (("9C", "9C is not on the table"), ("<b>", "<b> is not on the table"),
                      ("x" * 9, "attacker")):
        refused = live.get("/api/moves", params={"attacker": bad})
        assert refused.status_code == 422 and says in one_sentence(refused), refused.text


def test_a_secret_is_told_face_down_and_its_player_may_peek(live):
    """Rexxar's Snipe (Q♦) is "p1 sets a secret" on every page until it is revealed; the
    phone's holder may look at it with the token, no one else."""
    token = {"Authorization": f"Bearer {live.token}"}
    assert live.get("/api/secrets/p1", headers=token).status_code == 409  # no game yet
    new_game(live, {"p1": "rexxar", "p2": "garrosh"}, deck=None)
    for event in ({"type": "mulligan", "player": "p1", "count": 0},
                  *[{"type": "end_turn"}] * 4, {"type": "play", "player": "p1", "card": "QD"}):
        live.event(**event)
    said = json.dumps(live.get("/api/state").json())
    assert "p1 sets a secret" in said and "QD" not in said and "Snipe" not in said
    peek = live.get("/api/secrets/p1", headers=token)
    assert peek.json() == {"player": "p1", "secrets": [{"card": "QD", "name": "Snipe"}]}
    assert live.get("/api/secrets/p2", headers=token).json()["secrets"] == []
    assert live.get("/api/secrets/p1").status_code == 401  # a watcher has no token
    bad = live.get("/api/secrets/p3", headers=token)
    assert bad.status_code == 422 and one_sentence(bad)
    live.event("end_turn")
    live.event("play", player="p2", card="6S")
    live.event("play", player="p2", card="10H")
    # the secret offered is the one the last play sets off, at the minion just played
    offered = [m for m in live.get("/api/moves", headers=token).json()["moves"]
               if m["type"] == "secret_revealed"]
    assert offered == [{"type": "secret_revealed", "player": "p1", "card": "QD",
                        "target": "10H"}]
    # a secret that was never set cannot be revealed: one sentence, nothing changes
    log = live.get("/api/log", headers=token).json()["events"]
    for card, why in (("QH", "p1 revealed QH (Explosive Trap), which was never set"),
                      ("5D", "5D is not a secret of Rexxar")):
        never = live.post("/api/events", {"type": "secret_revealed", "player": "p1",
                                          "card": card, "target": "10H"})
        assert never.status_code == 409 and one_sentence(never)
        assert never.json()["detail"].startswith(why)
    assert live.get("/api/log", headers=token).json()["events"] == log
    # the log names it: while it lies face down, only with the token
    game = live.get("/api/state").json()["game"]
    for path in ("/api/log", "/api/log.jsonl", f"/api/games/{game}/log.jsonl"):
        hidden = live.get(path)
        assert hidden.status_code == 401 and one_sentence(hidden), path
        assert "QD" in live.get(path, headers=token).text
    live.event("secret_revealed", player="p1", card="QD", target="10H")
    assert live.get("/api/log").status_code == 200  # revealed: anyone may read the log
    recent = live.get("/api/state").json()["recent"]
    assert "p1 reveals the secret QD" in recent[-1] and "p1 sets a secret" in recent[-5]


def _jaina_sets_vaporize(live: Quick) -> None:
    """Jaina (p1) against Rexxar (p2): Jaina sets K♠ (Vaporize) on turn 1 with 1 mana (an
    illegal play: its alert names the card), then turns pass to Rexxar's turn 8."""
    new_game(live, {"p1": "jaina", "p2": "rexxar"}, deck=None)
    for event in ({"type": "mulligan", "player": "p1", "count": 0},
                  {"type": "mulligan", "player": "p2", "count": 0},
                  {"type": "play", "player": "p1", "card": "KS"}, *[{"type": "end_turn"}] * 7):
        assert live.event(**event).status_code == 200, event


def test_no_public_word_names_a_face_down_secret_its_alerts_included(live, watcher):
    """The public state (and the socket) never names a secret set face down, not even in the
    alert of its own illegal play; reveals, which name the card, are listed only with the
    token; once revealed, the alert names it again."""
    token = {"Authorization": f"Bearer {live.token}"}
    _jaina_sets_vaporize(live)
    public = live.get("/api/state").json()
    mana = [a for a in public["alerts"] if a["code"] == "not_enough_mana"]
    assert mana and mana[0]["message"] == "p1 played a secret (3 mana) with 1 mana available"
    pushed = watcher.wait_for(lambda s: s["events"] == public["events"])
    for said in (json.dumps(public), json.dumps(pushed)):
        assert "KS" not in said and "Vaporize" not in said
    live.event("play", player="p2", card="4C")
    # a watcher's moves list no reveal; the phone's do, and say none was set off
    assert not [m for m in live.get("/api/moves").json()["moves"]
                if m["type"] == "secret_revealed"]
    assert "KS" not in live.get("/api/moves").text
    phone = live.get("/api/moves", headers=token).json()
    assert {m["card"] for m in phone["moves"] if m["type"] == "secret_revealed"} == {"KS"}
    assert phone["secrets_due"] is False
    live.event("end_turn")
    live.event("end_turn")
    live.event("attack", attacker="4C", target="p1")
    due = live.get("/api/moves", headers=token).json()
    assert due["secrets_due"] is True
    assert [m for m in due["moves"] if m["type"] == "secret_revealed"] == [
        {"type": "secret_revealed", "player": "p1", "card": "KS", "target": "4C"}]
    live.event("secret_revealed", player="p1", card="KS", target="4C")
    after = live.get("/api/state").json()
    assert any("KS" in a["message"] for a in after["alerts"] if a["code"] == "not_enough_mana")


def test_the_other_player_cannot_find_a_face_down_secret_by_naming_its_card(live):
    """A Jaina mirror: p1's K♠ (Vaporize) lies face down. p2 asking what K♠ would do is told
    nothing of where it lies: it is offered as any card not seen is, and only its owner's
    own view (a second K♠ of p1's) says it is on the table."""
    token = {"Authorization": f"Bearer {live.token}"}
    new_game(live, {"p1": "jaina", "p2": "jaina"}, deck=None)
    for event in ({"type": "mulligan", "player": "p1", "count": 0},
                  {"type": "mulligan", "player": "p2", "count": 0},
                  *[{"type": "end_turn"}] * 4, {"type": "play", "player": "p1", "card": "KS"},
                  {"type": "end_turn"}):
        assert live.event(**event).status_code == 200, event
    probe = live.get("/api/moves?card=KS&player=p2", headers=token).json()
    unseen = live.get("/api/moves?card=KH&player=p2", headers=token).json()
    assert probe["place"] is None and "KS" not in json.dumps(probe["options"][0]["alerts"])
    assert [o["legal"] for o in probe["options"]] == [o["legal"] for o in unseen["options"]]
    assert ("KS" in live.get("/api/moves", headers=token).json()["cards"]) == (
        "KH" in live.get("/api/moves", headers=token).json()["cards"])
    own = live.get("/api/moves?card=KS&player=p1", headers=token).json()
    assert own["place"] == "play:p1"
    # a watcher (no token) is told of no face-down secret, not even as its owner's card
    for player in ("p1", "p2"):
        watched = live.get(f"/api/moves?card=KS&player={player}")
        assert watched.status_code == 200 and watched.json()["place"] is None
        said = [a for o in watched.json()["options"] for a in o["alerts"]]
        assert not [a for a in said if "in play" in a or "secret" in a], said


def test_vaporize_told_after_the_attack_it_answers_stops_it(live, tmp_path):
    """At the table "Vaporize!" is said once the attack is declared, so the phone records it
    after the attack: it goes before the attack in the log, the attacker is destroyed and
    the hero is as if the attack never hit; Undo takes the secret back and the attack is as
    it was told; the log replays to the same state."""
    _jaina_sets_vaporize(live)
    live.event("play", player="p2", card="4C")
    live.event("end_turn")
    live.event("end_turn")
    before = state(live)["players"]["p1"]["health"]
    hit = live.event("attack", attacker="4C", target="p1").json()["state"]
    assert hit["players"]["p1"]["health"] == before - 4
    answered = live.event("secret_revealed", player="p1", card="KS", target="4C")
    assert answered.status_code == 200, answered.text
    now = answered.json()["state"]
    assert now["players"]["p1"]["health"] == before
    assert now["players"]["p2"]["minions"] == [] and now["players"]["p1"]["secrets"] == 0
    assert "p1 reveals the secret KS (Vaporize) at 4C" in now["recent"][-1]
    log = live.get("/api/log").json()["events"]
    assert [e["type"] for e in log[-2:]] == ["end_turn", "secret_revealed"]
    assert replayed_state(live, tmp_path)["players"] == now["players"]
    undone = live.post("/api/undo").json()["state"]
    assert undone["players"]["p1"]["health"] == before - 4
    assert undone["players"]["p1"]["secrets"] == 1
    assert [m["id"] for m in undone["players"]["p2"]["minions"]] == ["4C"]
    log = live.get("/api/log", headers={"Authorization": f"Bearer {live.token}"}).json()
    assert log["events"][-1] == {"type": "attack", "attacker": "4C", "target": "p1",
                                 "source": "phone"}
    # told in its place (before the attack), the same secret gives the same game
    live.post("/api/undo")
    live.event("secret_revealed", player="p1", card="KS", target="4C")
    assert state(live)["players"] == now["players"]


def test_vaporize_told_after_the_blow_that_ended_the_game_stops_it(live):
    """Jaina at 4 health; Rexxar's 4♣ attacks her and the game is over. "Vaporize!" still
    comes after: the phone is offered it (the only move of a game so ended) and it stops
    the blow, so the game goes on with Jaina at 4."""
    token = {"Authorization": f"Bearer {live.token}"}
    _jaina_sets_vaporize(live)  # Rexxar's turn 8: he used no power yet
    for _ in range(8):  # Steady Shot on each of Rexxar's turns: 16 damage
        assert live.event("hero_power", player="p2").status_code == 200
        live.event("end_turn")
        live.event("end_turn")
    assert state(live)["players"]["p1"]["health"] == 4
    live.event("play", player="p2", card="4C")
    live.event("end_turn")
    live.event("end_turn")
    over = live.event("attack", attacker="4C", target="p1").json()["state"]
    assert over["over"] and over["winner"] == "p2"
    assert live.get("/api/moves").json()["moves"] == []  # a watcher: no reveal named
    offered = live.get("/api/moves", headers=token).json()
    assert offered["secrets_due"] is True and offered["moves"] == [
        {"type": "secret_revealed", "player": "p1", "card": "KS", "target": "4C"}]
    stopped = live.event("secret_revealed", player="p1", card="KS", target="4C")
    assert stopped.status_code == 200, stopped.text
    now = stopped.json()["state"]
    assert not now["over"] and now["players"]["p1"]["health"] == 4
    assert now["players"]["p2"]["minions"] == []
    undone = live.post("/api/undo").json()["state"]
    assert undone["over"] and undone["players"]["p1"]["health"] == 0


def test_the_cameras_questions_are_shown_and_answered(tmp_path):
    """The camera played a game it could not wholly see (a recorded reading): its questions
    are on every page; a bad answer is one sentence and changes nothing; an answer goes
    back to the camera's tracker, which writes the log again from that point."""
    with serve(tmp_path, camera=recorded_camera()) as live:
        ended = wait_for_camera(live)
        watcher = Watcher(live)
        pending = ended["pending"]
        ids = [q["id"] for q in pending]  # every view's choice has an id; four are asked
        assert len(ids) == 4 and ids == sorted(ids)
        fireblast, qid = pending[1], pending[1]["id"]
        assert [o["label"] for o in fireblast["options"]] == [
            "p2 uses Fireblast at p1", "p2 uses Fireblast at p2"]
        assert fireblast["options"][1]["events"] == [
            {"type": "hero_power", "player": "p2", "target": "p2"}]
        assert live.get("/api/questions").json() == pending

        before = snapshot(live)
        for asked, body, status in [(999, {"option": 0}, 404), (qid, {"option": 2}, 422),
                                    (qid, {"option": 25}, 422), (qid, {"option": -1}, 422),
                                    (qid, {"option": "x"}, 422), (qid, {}, 422),
                                    (qid, {"option": 0, "extra": 1}, 422)]:
            response = live.post(f"/api/questions/{asked}", body)
            assert response.status_code == status, (asked, body, response.text)
            one_sentence(response)
        assert live.post("/api/questions/abc", {"option": 0}).status_code == 422
        assert httpx.post(f"{live.url}/api/questions/{qid}",
                          json={"option": 1}).status_code == 401
        # none reached the camera: an answer to no question, handed to the camera itself, is
        # taken with any that came before it, and the camera's update after it is a version
        live.app.state.table.feed.answer(-1, 0)
        watcher.wait_version(before[0]["version"] + 1)
        after = snapshot(live)
        assert after[0].pop("version") > before[0]["version"]
        assert after == ({k: v for k, v in before[0].items() if k != "version"}, *before[1:])

        assert live.post(f"/api/questions/{qid}", {"option": 1}).status_code == 200
        # answered: gone; the later views, which no one answered, are explained again
        # (new questions, new ids), the earlier one stays as it was
        after = watcher.wait_for(lambda s: len(s["pending"]) == len(ids) - 1
                                 and qid not in [q["id"] for q in s["pending"]])
        assert after["pending"][0] == pending[0]
        log = [parse_event(e) for e in live.get("/api/log").json()["events"]]
        fireblasts = [e for e in log if e.type == "hero_power" and e.player == "p2"]
        assert fireblasts[0].target == "p2"  # the first, the one asked about
        assert after["events"] == len(log) and after == state(live)
        replayed = Game.replay(log).state().model_dump(mode="json")
        assert {k: replayed[k] for k in replayed} == {k: after[k] for k in replayed}
        assert [e for e in DataFolder(tmp_path).current().events] == log  # kept on disk
        # answered: gone
        assert live.post(f"/api/questions/{qid}", {"option": 1}).status_code == 404
        watcher.close()


def test_a_question_without_a_camera_is_not_there(live):
    in_progress(live)
    response = live.post("/api/questions/1", {"option": 0})
    assert response.status_code == 404 and "no open question 1" in one_sentence(response)


def test_an_answer_cannot_start_a_new_game():
    with pytest.raises(ValidationError, match="cannot start a new one"):
        Option(label="yes", events=[{"type": "new_game", "heroes": HEROES}])


def test_games_lists_the_finished_game(live):
    assert live.get("/api/games").json() == []
    first = new_game(live, {"p1": "uther", "p2": "rexxar"}, deck=None)
    live.event("mulligan", player="p1", count=0)
    live.event("concede", player="p2")
    finished_log = live.get("/api/log.jsonl").text
    assert state(live)["over"] and state(live)["winner"] == "p1"
    second = new_game(live)
    assert second["game"] != first["game"] and second["events"] == 1

    games = live.get("/api/games").json()
    assert [g["id"] for g in games] == sorted([first["game"], second["game"]], reverse=True)
    done = next(g for g in games if g["id"] == first["game"])
    assert done["over"] and done["winner"] == "p1" and not done["current"]
    assert done["events"] == 3 and done["heroes"] == {"p1": "uther", "p2": "rexxar"}
    assert next(g for g in games if g["id"] == second["game"])["current"]

    kept = live.get(f"/api/games/{first['game']}/log.jsonl")
    assert kept.status_code == 200 and kept.text == finished_log
    assert first["game"] in kept.headers["content-disposition"]
    for missing in ["nope", "..%2Ftoken", "%2E%2E", first["game"] + ".jsonl"]:
        response = live.get(f"/api/games/{missing}/log.jsonl")
        assert response.status_code == 404, missing
        one_sentence(response)


def test_a_kept_log_that_cannot_be_read_is_a_sentence(live, tmp_path):
    """A damaged file in the data folder: listed with its error, refused with a sentence."""
    new_game(live)
    games = tmp_path / "games"
    (games / "20200101-000000-bad1.jsonl").write_text(
        json.dumps({"type": "new_game", "heroes": HEROES}) + "\nnot json\n")
    (games / "20200101-000000-bad2.jsonl").mkdir()
    (games / "20200101-000000-bad3.jsonl").write_text('{"type": "end_turn"}\n')
    listed = {g["id"]: g for g in live.get("/api/games").json()}
    assert len(listed) == 4
    for game in ("20200101-000000-bad1", "20200101-000000-bad2", "20200101-000000-bad3"):
        assert listed[game]["error"] and not listed[game]["current"], listed[game]
    for game in ("20200101-000000-bad1", "20200101-000000-bad2"):
        response = live.get(f"/api/games/{game}/log.jsonl")
        assert response.status_code == 409, response.text
        assert game in one_sentence(response)
    assert live.get("/api/games/20200101-000000-bad3/log.jsonl").status_code == 200
    assert state(live)["events"] == 1


def test_reads_need_no_token_and_writes_take_it_in_the_query(live):
    new_game(live)
    assert live.get("/api/heroes").status_code == 200
    response = httpx.post(f"{live.url}/api/events?token={live.token}",
                          json=bare(DEMO_EVENTS[1]))
    assert response.status_code == 200, response.text
    assert state(live)["events"] == 2


def test_a_chunked_body_under_the_limit_is_read(live):
    new_game(live)

    def chunks():
        text = json.dumps(bare(DEMO_EVENTS[1])).encode()
        for i in range(0, len(text), 7):
            yield text[i:i + 7]

    response = post_raw(live, "/api/events", chunks())
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 200, response.text
    assert state(live)["events"] == 2


# --- bad requests: a sentence, and the game as it was --------------------------------------
def chunked_over_limit():
    for _ in range(200):  # 200 KB, no content-length
        yield b" " * 1024


def in_progress(live: LiveServer) -> None:
    new_game(live)
    for event in DEMO_EVENTS[1:5]:
        live.event(**bare(event))


def game_over(live: LiveServer) -> None:
    in_progress(live)
    live.event("concede", player="p2")


PLAY = {"type": "play", "player": "p1", "card": "5H"}
BAD_REQUESTS = [
    # (name, set-up, request, expected status)
    ("malformed JSON", in_progress,
     lambda live: post_raw(live, "/api/events", b'{"type": "end_turn"'), 422),
    ("a JSON array", in_progress,
     lambda live: post_raw(live, "/api/events", b'[{"type": "end_turn"}]'), 422),
    ("a JSON string", in_progress,
     lambda live: post_raw(live, "/api/events", b'"end_turn"'), 422),
    ("an empty body", in_progress, lambda live: post_raw(live, "/api/events", b""), 422),
    ("not UTF-8", in_progress,
     lambda live: post_raw(live, "/api/events", b'{"type": "end_turn", "source": "\xff"}'),
     (400, 422)),
    ("JSON nested 20000 deep", in_progress,
     lambda live: post_raw(live, "/api/events", b"[" * 20000 + b"]" * 20000), (400, 422)),
    ("an integer of 5000 digits", in_progress,
     lambda live: post_raw(live, "/api/events",
                           b'{"type":"mulligan","player":"p1","count":' + b"9" * 5000 + b"}"),
     (400, 422)),
    ("unknown event type", in_progress,
     lambda live: live.post("/api/events", {"type": "shuffle"}), 422),
    ("no event type", in_progress,
     lambda live: live.post("/api/events", {"player": "p1"}), 422),
    ("unknown card", in_progress,
     lambda live: live.post("/api/events", {**PLAY, "card": "ZZ"}), 422),
    ("unknown target", in_progress,
     lambda live: live.post("/api/events", {**PLAY, "target": "p3"}), 422),
    ("unknown player", in_progress,
     lambda live: live.post("/api/events", {**PLAY, "player": "p3"}), 422),
    ("wrong field type", in_progress,
     lambda live: live.post("/api/events", {"type": "mulligan", "player": "p1",
                                            "count": "two"}), 422),
    ("a list where a card belongs", in_progress,
     lambda live: live.post("/api/events", {**PLAY, "card": ["5H"]}), 422),
    ("confidence NaN", in_progress,
     lambda live: post_raw(live, "/api/events", b'{"type": "end_turn", "confidence": NaN}'),
     422),
    ("extra field", in_progress,
     lambda live: live.post("/api/events", {"type": "end_turn", "extra": 1}), 422),
    ("a revealed card twice", in_progress,
     lambda live: live.post("/api/events", {"type": "hero_power", "player": "p2",
                                            "revealed": ["2S", "2S"]}), (409, 422)),
    ("unknown hero on new-game", in_progress,
     lambda live: live.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "arthas"}}),
     422),
    ("one hero on new-game", in_progress,
     lambda live: live.post("/api/new-game", {"heroes": {"p1": "jaina"}}), 422),
    ("a short deck on new-game", in_progress,
     lambda live: live.post("/api/new-game", {"heroes": HEROES, "deck": DECK[:51]}), 422),
    ("a new_game event with an unknown hero", in_progress,
     lambda live: live.post("/api/events", {"type": "new_game",
                                            "heroes": {"p1": "x", "p2": "y"}}), 422),
    ("missing token", in_progress,
     lambda live: post_raw(live, "/api/events", b'{"type": "end_turn"}', token=None), 401),
    ("missing token on undo", in_progress,
     lambda live: httpx.post(live.url + "/api/undo"), 401),
    ("missing token on new-game", in_progress,
     lambda live: httpx.post(live.url + "/api/new-game", json={"heroes": HEROES}), 401),
    ("wrong token", in_progress,
     lambda live: post_raw(live, "/api/events", b'{"type": "end_turn"}', token="x" * 24),
     403),
    ("wrong token in the query", in_progress,
     lambda live: httpx.post(live.url + "/api/events?token=nope", json={"type": "end_turn"}),
     403),
    ("a token that is not ASCII", in_progress,
     lambda live: httpx.post(live.url + "/api/events", json={"type": "end_turn"},
                             headers={"authorization": b"Bearer \xc3\xa9\xff"}), 403),
    ("a 10 MB body", in_progress,
     lambda live: post_raw(live, "/api/events", b"x" * 10_000_000), 413),
    ("a chunked body over the limit", in_progress,
     lambda live: post_raw(live, "/api/events", chunked_over_limit()), 413),
    ("an event after the game is over", game_over,
     lambda live: live.post("/api/events", {"type": "end_turn"}), 409),
    ("undo with nothing to undo", lambda live: new_game(live),
     lambda live: live.post("/api/undo"), 409),
    ("an event before any game", lambda live: None,
     lambda live: live.post("/api/events", {"type": "end_turn"}), 409),
    ("undo before any game", lambda live: None,
     lambda live: live.post("/api/undo"), 409),
    ("a method not allowed", in_progress,
     lambda live: httpx.put(live.url + "/api/events", json={"type": "end_turn"}), 405),
    ("a path that is not there", in_progress,
     lambda live: live.post("/api/nothing", {"type": "end_turn"}), 404),
]


@pytest.mark.parametrize(("set_up", "send", "status"), [b[1:] for b in BAD_REQUESTS],
                         ids=[b[0] for b in BAD_REQUESTS])
def test_a_bad_request_is_one_sentence_and_changes_nothing(live, set_up, send, status):
    set_up(live)
    watcher = Watcher(live)
    try:
        before = snapshot(live)
        watcher.wait_version(before[0]["version"])
        response = send(live)
        expected = status if isinstance(status, tuple) else (status,)
        assert response.status_code in expected, response.text
        one_sentence(response)
        assert snapshot(live) == before
        # the socket still follows the game
        if before[0]["game"] and not before[0]["over"]:
            moved = live.event("markers", player="p1", place="armor", count=0).json()["state"]
        else:
            moved = new_game(live)
        assert moved["version"] > before[0]["version"]
        assert watcher.wait_version(moved["version"]) == moved
    finally:
        watcher.close()


def test_a_game_at_its_event_limit_is_refused_cleanly(tmp_path):
    with serve(tmp_path, game_limits=Limits(max_events=5)) as live:
        in_progress(live)  # new-game and 4 events: the game is full
        before = snapshot(live)
        response = live.post("/api/events", {"type": "end_turn"})
        assert response.status_code == 409 and "5000" not in one_sentence(response)
        assert snapshot(live) == before
        assert live.post("/api/undo").status_code == 200  # undo and new-game still work
        new_game(live)


def test_bad_requests_in_a_row_leave_the_socket_fed(live, watcher):
    """The bad requests above, one after another on one server and one socket."""
    in_progress(live)
    for name, set_up, send, status in BAD_REQUESTS:
        if set_up is not in_progress:
            continue
        before = snapshot(live)
        response = send(live)
        assert response.status_code in (status if isinstance(status, tuple) else (status,)
                                         ), (name, response.text)
        one_sentence(response)
        assert snapshot(live) == before, name
    moved = live.event("end_turn").json()["state"]
    assert watcher.wait_version(moved["version"]) == moved


# --- sockets ---------------------------------------------------------------------------------
def raw_ws(live: LiveServer, rcvbuf: int | None = None) -> tuple[socket.socket, bytes]:
    """A WebSocket opened by hand (no compression offered), for clients that misbehave:
    the socket, once the server has answered the handshake, and what came after the answer."""
    host, port = live.url.removeprefix("http://").split(":")
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(PROMPT)
    sock.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(4096)
        assert chunk, "the server closed the socket during the handshake"
        answer += chunk
    head, rest = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock, rest


def frame(opcode: int, payload: bytes, *, mask: bool = True) -> bytes:
    """One final client frame (masked, as a client must, unless told otherwise)."""
    size = len(payload)
    bit = 0x80 if mask else 0
    head = bytes([0x80 | opcode])
    if size < 126:
        head += bytes([bit | size])
    elif size < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", size)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", size)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def read_until_close(sock: socket.socket, data: bytes, timeout: float) -> int | None:
    """Read a server's frames until its close frame: the close code (None if the stream
    ended or `timeout` passed first)."""
    deadline = time.monotonic() + timeout
    while True:
        while len(data) >= 2:
            opcode, size, at = data[0] & 0x0F, data[1] & 0x7F, 2
            if size == 126:
                size, at = (struct.unpack("!H", data[2:4])[0], 4) if len(data) >= 4 else (0, 0)
            elif size == 127:
                size, at = (struct.unpack("!Q", data[2:10])[0], 10) if len(data) >= 10 else (0, 0)
            if not at or len(data) < at + size:
                break
            if opcode == 0x8:
                return struct.unpack("!H", data[at:at + 2])[0] if size >= 2 else 1005
            data = data[at + size:]
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            chunk = sock.recv(1 << 20)
        except (TimeoutError, ConnectionError):
            return None
        if not chunk:
            return None
        data += chunk


AGAIN = {"type": "play", "player": "p1", "card": "6S"}  # 6S is in play: an alert each time


def test_a_client_that_never_reads_is_dropped_and_hurts_nobody(tmp_path):
    # a big state fills the stuck client's buffers quickly: a game (resumed from its log)
    # holding a thousand alerts, 6S played again and again
    folder = DataFolder(tmp_path)
    folder.save("big", [parse_event(e) for e in DEMO_EVENTS[:8]]
                + [parse_event(AGAIN)] * 1000)
    folder.close()
    limits = ServerLimits(send_timeout_s=0.3, resend_s=0.02)
    with serve(tmp_path, limits=limits) as live:
        hub = live.app.state.table.hub
        assert len(live.get("/api/state").content) > 150_000
        good = Watcher(live, max_size=None)
        stuck, unread = raw_ws(live, rcvbuf=4096)
        try:
            deadline = time.monotonic() + 3
            while hub.clients < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert hub.clients == 2
            # every change reaches the good client promptly while the stuck one is held
            started = time.monotonic()
            for _ in range(7):
                moved = live.event(**AGAIN).json()["state"]
                sent = time.monotonic()
                good.wait_version(moved["version"], timeout=1.0)
                assert time.monotonic() - sent < 1.0
            # … and the stuck one is dropped (the hub forgets it) within seconds
            while hub.clients > 1 and time.monotonic() - started < 10:
                time.sleep(0.02)
            assert hub.clients == 1, "the client that never reads was not dropped"
            moved = live.event(**AGAIN).json()["state"]
            assert good.wait_version(moved["version"], timeout=1.0) == moved
            assert not good.closed
            # once it reads, it finds the server closed the socket
            assert read_until_close(stuck, unread, timeout=PROMPT) == 1000, "no close frame"
        finally:
            stuck.close()
            good.close()


def test_a_flood_of_writes_is_slowed_and_the_game_stays_consistent(tmp_path):
    limits = ServerLimits(writes_per_s=10, write_burst=20)
    with serve(tmp_path, limits=limits) as live:
        new_game(live, deck=None)
        watcher = Watcher(live)
        headers = {"authorization": f"Bearer {live.token}"}
        markers = {"type": "markers", "player": "p1", "place": "armor", "count": 0}
        try:
            with httpx.Client(base_url=live.url, headers=headers, timeout=PROMPT) as client:
                def flood(_: int) -> list[httpx.Response]:
                    return [client.post("/api/events", json=markers) for _ in range(30)]

                with ThreadPoolExecutor(4) as pool:
                    replies = [r for batch in pool.map(flood, range(4)) for r in batch]
                # reads are not limited, and are answered meanwhile
                assert client.get("/api/state").status_code == 200
            codes = [r.status_code for r in replies]
            assert set(codes) <= {200, 429}, set(codes)
            accepted = codes.count(200)
            assert 19 <= accepted < 60 and codes.count(429) >= 60
            for reply in replies:
                if reply.status_code == 429:
                    assert "slow down" in one_sentence(reply)
            now = state(live)
            log = live.get("/api/log").json()["events"]
            assert len(log) == now["events"] == 1 + accepted
            kept = live.get(f"/api/games/{now['game']}/log.jsonl").text.splitlines()
            assert len(kept) == 1 + accepted
            assert watcher.wait_version(now["version"]) == now
            # the bucket refills: a client that slows down is heard again
            time.sleep(0.25)
            moved = live.event("end_turn").json()["state"]
            assert moved["events"] == 2 + accepted
            assert watcher.wait_version(moved["version"]) == moved
        finally:
            watcher.close()


def test_garbage_frames_do_not_break_the_hub(live):
    new_game(live)
    hub = live.app.state.table.hub
    bystander = Watcher(live)
    noisy = Watcher(live)
    try:
        noisy.ws.send(b"\x00\xff" * 500)  # binary
        noisy.ws.send("not json {")
        noisy.ws.send(json.dumps({"type": "end_turn"}))  # events do not go this way
        noisy.ws.send("x" * 60_000)
        noisy.ws.ping()
        # a frame over the size limit: that client alone is closed
        oversized = Watcher(live)
        oversized.ws.send("x" * 200_000)
        # protocol violations by hand: each such client alone is closed, with the reason
        for bad, code in [(frame(0x1, b"hello", mask=False), 1002),  # a client must mask
                          (frame(0x3, b"??"), 1002),  # a reserved opcode
                          (frame(0x8, b"\x03"), 1002),  # a close frame too short
                          (frame(0x1, b"\xff\xfe"), 1007),  # text that is not UTF-8
                          (frame(0x2, b"\x00" * 70_000), 1009)]:  # over ws_max_size
            sock, rest = raw_ws(live)
            sock.sendall(bad)
            assert read_until_close(sock, rest, timeout=PROMPT) == code
            sock.close()
        deadline = time.monotonic() + PROMPT
        while not oversized.closed and time.monotonic() < deadline:
            time.sleep(0.01)
        assert oversized.closed
        assert state(live)["events"] == 1  # nothing a socket sends changes the game
        moved = live.event(**bare(DEMO_EVENTS[1])).json()["state"]
        assert bystander.wait_version(moved["version"]) == moved
        assert noisy.wait_version(moved["version"]) == moved
        deadline = time.monotonic() + PROMPT
        while hub.clients != 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert hub.clients == 2
    finally:
        bystander.close()
        noisy.close()


def test_sockets_over_the_limit_are_refused_and_the_others_kept(tmp_path):
    with serve(tmp_path, limits=ServerLimits(max_sockets=2)) as live:
        new_game(live)
        first, second = Watcher(live), Watcher(live)
        try:
            second.wait_for(lambda s: True)
            with (connect(ws_url(live), open_timeout=PROMPT) as over,  # docs/limits.md
                  pytest.raises(ConnectionClosed) as closed):
                over.recv(timeout=PROMPT)
            assert closed.value.rcvd.code == 1013 and "try again" in closed.value.rcvd.reason
            moved = live.event(**bare(DEMO_EVENTS[1])).json()["state"]
            assert first.wait_version(moved["version"]) == moved
            assert second.wait_version(moved["version"]) == moved
            second.close()
            deadline = time.monotonic() + PROMPT
            while live.app.state.table.hub.clients > 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            third = Watcher(live)  # a place is free again
            assert third.wait_version(moved["version"]) == moved
            third.close()
        finally:
            first.close()


def test_a_socket_gets_the_state_on_connect_and_again_after_resend(tmp_path):
    with serve(tmp_path, limits=ServerLimits(resend_s=0.1)) as live:
        now = new_game(live)
        watcher = Watcher(live)
        try:
            assert watcher.wait_version(now["version"]) == now
            started, deadline = time.monotonic(), time.monotonic() + HANG_S
            while len(watcher.states) < 3:  # the same state, sent again, twice
                assert time.monotonic() < deadline, watcher.states
                time.sleep(0.01)
            assert time.monotonic() - started < 5.0  # every resend_s, not the default 5 s
            assert all(s == now for s in watcher.states)
        finally:
            watcher.close()
