"""The whole path on a short simulated game: `simulate` draws it, `track` reads it back
through the real recogniser, stabilizer and tracker (nothing read from truth.jsonl).

This is the path's smoke test (it runs, its outputs keep their contracts, the minions it
reads are the ones played); the accuracy figures over whole games are `bench/track.py`'s.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion_api.cli import replay_log
from tracker.rules.bot import play_game
from tracker.rules.events import dump_log


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion_api.cli", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def tracked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e")
    game = play_game(("jaina", "garrosh"), seed=1, sensible=True)
    dump_log(game.events[:12], folder / "game.jsonl")
    made = _cli("simulate", str(folder / "game.jsonl"), "--out", str(folder / "sim"),
                "--seed", "3", "--fps", "10")
    assert made.returncode == 0, made.stderr
    # the folder `simulate` wrote, as `run --source` takes it: its phone.jsonl is read
    run = _cli("track", str(folder / "sim"), "--json", "--events", str(folder / "got.jsonl"))
    assert run.returncode == 0, run.stderr
    return folder, json.loads(run.stdout)


def test_track_prints_the_state_as_replay_does_and_its_log_replays(tracked):
    folder, state = tracked
    replayed = replay_log(folder / "got.jsonl").state().model_dump(mode="json")
    assert {k: v for k, v in state.items() if k in replayed} == replayed
    # every moment of the recording, those the camera gave no picture for among them
    numbers = [int(p.stem) for p in (folder / "sim" / "frames").iterdir()]
    assert state["frames"] == max(numbers) + 1
    assert {"questions", "unexplained"} <= state.keys()


def test_the_phone_gives_the_game_and_its_turns_the_camera_the_rest(tracked):
    folder, state = tracked
    truth = replay_log(folder / "game.jsonl").state()
    assert [state["players"][p]["hero"] for p in ("p1", "p2")] == ["jaina", "garrosh"]
    assert state["turn"] == truth.turn and state["active"] == truth.active
    events = [json.loads(line) for line in (folder / "got.jsonl").read_text().splitlines()]
    assert {e["source"] for e in events} <= {"phone", "camera"}
    assert all(e["source"] == "camera" for e in events
               if e["type"] not in ("new_game", "end_turn", "concede"))


def test_the_minions_on_the_table_are_read(tracked):
    folder, state = tracked
    truth = replay_log(folder / "game.jsonl").state()
    for player in ("p1", "p2"):
        want = {m.card for m in truth.players[player].minions if m.card}
        got = {m["card"] for m in state["players"][player]["minions"] if m["card"]}
        assert got == want, player


def test_a_hero_attacks_when_its_card_is_tilted(tmp_path):
    """Malfurion's claws, then his hero power, each give him an attack on Thrall: nothing
    on the table changes but his hero card, tilted while he attacks (docs/table.md)."""
    game = play_game(("malfurion", "thrall"), seed=2, sensible=True)
    dump_log(game.events[:11], tmp_path / "game.jsonl")
    assert sum(e.type == "attack" and e.attacker == "p1" for e in game.events[:11]) == 2
    made = _cli("simulate", str(tmp_path / "game.jsonl"), "--out", str(tmp_path / "sim"),
                "--seed", "3", "--fps", "10")
    assert made.returncode == 0, made.stderr
    run = _cli("track", str(tmp_path / "sim" / "frames"), "--phone",
               str(tmp_path / "sim" / "phone.jsonl"), "--events", str(tmp_path / "got.jsonl"))
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in (tmp_path / "got.jsonl").read_text().splitlines()]
    attacks = [(e["attacker"], e["target"]) for e in events if e["type"] == "attack"]
    assert attacks == [("p1", "p2"), ("p1", "p2")]


def test_plays_made_while_the_camera_was_blind_are_recovered(tmp_path):
    """The camera freezes over the first minion laid, goes dark over the joker, and sends
    nothing over the hero power; the game goes on during each exactly as its log says.
    Read back (faults.jsonl never read), the log has every play and the state is the
    game's."""
    game = play_game(("jaina", "garrosh"), seed=1, sensible=True)
    dump_log(game.events[:12], tmp_path / "game.jsonl")
    made = _cli("simulate", str(tmp_path / "game.jsonl"), "--out", str(tmp_path / "sim"),
                "--seed", "3", "--fps", "10",
                "--faults", "freeze@31.5+1.5,black@35+1.5,dropout@39.8+1")
    assert made.returncode == 0, made.stderr
    faults = [json.loads(line) for line in (tmp_path / "sim" / "faults.jsonl").read_text()
              .splitlines()]
    truth = [json.loads(line) for line in (tmp_path / "sim" / "truth.jsonl").read_text()
             .splitlines()]
    blind = [t["event"] for t in truth if any(
        f["first_frame"] <= t["frame"] <= f["last_frame"] for f in faults)]
    assert [e["type"] for e in blind] == ["play", "play", "hero_power"]
    run = _cli("track", str(tmp_path / "sim" / "frames"), "--phone",
               str(tmp_path / "sim" / "phone.jsonl"), "--json", "--events",
               str(tmp_path / "got.jsonl"))
    assert run.returncode == 0, run.stderr
    got = [json.loads(line) for line in (tmp_path / "got.jsonl").read_text().splitlines()]
    camera = [{k: v for k, v in e.items() if k not in ("source", "confidence")}
              for e in got if e["source"] == "camera"]
    for event in blind:
        assert {k: v for k, v in event.items() if k != "source"} in camera
    want = replay_log(tmp_path / "game.jsonl").state().model_dump(mode="json")
    assert {k: v for k, v in json.loads(run.stdout).items() if k in want} == want
