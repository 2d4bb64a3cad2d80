"""The reconciler and the live tracker on what a perfect camera sees of whole bot games:
the events recovered one by one, and the final state."""

from __future__ import annotations

import difflib
import random
from dataclasses import replace

from conftest import start

from simulator.game_views import readable_state, track_perfectly
from tracker.camera.live import LiveTracker
from tracker.camera.reconcile import BLIND_DEPTH, candidates, explain, view_distance
from tracker.camera.view import UNNAMED, Hints, TableView, expected_view
from tracker.rules.bot import play_game
from tracker.rules.events import Attack, EndTurn, HeroPower, Play, parse_event
from tracker.rules.heroes import hero_names
from tracker.rules.intent import against_intent


def _track(events) -> tuple[LiveTracker, int, int]:
    """The tracker after the game; the truth's events the table shows, and how many of
    them it recovered, in order (a view explained badly may wait for the next)."""
    tracker, truth, got = track_perfectly(events)
    blocks = difflib.SequenceMatcher(a=truth, b=got, autojunk=False).get_matching_blocks()
    return tracker, len(truth), sum(b.size for b in blocks)


def test_a_minion_attack_is_read_from_its_slide_and_the_markers():
    table = start("jaina", "garrosh", turn=3)
    table.play("p1", "2H")
    table.end_turn()
    table.play("p2", "3C")
    table.end_turn()
    truth = table.game.copy()
    truth.apply(attack := Attack(attacker="2H", target="3C"))
    found = explain(table.game, expected_view(truth), Hints(attackers=("2H",)))
    assert found.events == [attack] and found.explained and not found.ambiguous


def test_a_buff_spell_tucked_under_its_minion_is_read_though_no_one_names_it_there():
    table = start("valeera", "garrosh", turn=3)
    table.play("p1", "3C")
    table.play("p1", "4C")
    truth = table.game.copy()
    assert table.game.ability_of("p1", "JS").name == "Cold Blood"
    truth.apply(cold_blood := Play(player="p1", card="JS", target="3C"))
    view = expected_view(truth)
    minions = tuple(replace(m, spells=(UNNAMED,) * len(m.spells))  # the strip it shows
                    for m in view.sides["p1"].minions)
    seen = replace(view, sides={**view.sides, "p1": replace(view.sides["p1"], minions=minions)})
    assert [m.spells for m in minions] == [(UNNAMED,), ()]
    found = explain(table.game, seen, Hints(revealed=("JS",)))  # it was shown first
    assert found.events == [cold_blood] and found.explained


def test_a_weapon_misread_under_its_markers_is_still_the_hero_s_weapon():
    table = start("garrosh", "jaina", turn=3)
    truth = table.game.copy()
    assert table.game.ability_of("p1", "QD").kind == "weapon"
    truth.apply(axe := Play(player="p1", card="QD"))
    view = expected_view(truth)
    seen = replace(view, sides={**view.sides, "p1": replace(view.sides["p1"], weapon="KD")})
    found = explain(table.game, seen)  # KD is a spell for Garrosh: no weapon of his
    assert found.events == [axe]  # one sign of its index right: the likeliest of the four


def test_a_spell_at_a_hero_is_ambiguous_and_the_likelier_target_comes_first():
    table = start("jaina", "garrosh", turn=5)
    truth = table.game.copy()
    assert table.game.ability_of("p1", "AH").name == "Fireball"
    truth.apply(Play(player="p1", card="AH", target="p2"))
    found = explain(table.game, expected_view(truth))
    assert [e.target for e in found.events] == ["p2"]
    assert [[e.target for e in option] for option in found.alternatives] == [["p1"]]
    assert against_intent(table.game, Play(player="p1", card="AH", target="p1")) == 1


def test_whole_games_seen_by_a_perfect_camera():
    names = hero_names()
    games = right_states = total = right = 0
    for number, hero in enumerate(names):
        truth = play_game((hero, names[(number + 4) % 9]), seed=number, sensible=True)
        tracker, seen, got = _track(truth.events)
        total, right, games = total + seen, right + got, games + 1
        right_states += readable_state(tracker.game) == readable_state(truth)
    # secrets are set face down (their card is a guess until revealed) and heals of the
    # unhurt leave no trace: the rest is read exactly
    assert right / total >= 0.95, (right, total)
    assert right_states >= 7, right_states


def test_an_end_the_camera_made_is_undone_when_the_players_go_on():
    """Hero health is never on the table: a blow the camera placed wrong may end the game.
    The phone's next end of turn says the game goes on; the camera's last event goes."""
    events = play_game(("jaina", "garrosh"), seed=1, sensible=True).events
    tracker = LiveTracker()
    for event in events[:-1]:
        tracker.game.apply(event)
    assert not tracker.game.over
    tracker.game.apply(events[-1].model_copy(update={"source": "camera", "confidence": 0.5}))
    assert tracker.game.over  # the last blow, as the camera read it
    tracker.phone(EndTurn())
    assert not tracker.game.over
    assert tracker.events[-1].type == "end_turn" and len(tracker.events) == len(events)


def test_a_secret_set_face_down_is_logged_as_the_guess_it_is():
    tracker = LiveTracker()
    tracker.game = start("jaina", "garrosh", turn=5).game
    truth = tracker.game.copy()
    truth.apply(Play(player="p1", card="KH"))
    assert truth.sides["p1"].secrets == ["KH"]
    tracker.seen(expected_view(truth))
    secret = tracker.events[-1]
    assert secret.type == "play" and secret.card[0] == "K" and secret.source == "camera"
    assert secret.confidence <= 0.25  # any of Jaina's four secrets: no camera sees which


def test_the_coin_is_no_secret_of_a_hero_whose_secrets_are_jacks():
    tracker = LiveTracker()
    tracker.game = start("jaina", "uther", turn=2).game  # Uther's secrets are his jacks
    assert tracker.game.sides["p2"].hero.secret_rank == "J"
    truth = tracker.game.copy()
    truth.apply(Play(player="p2", card="JK"))
    tracker.seen(expected_view(truth))
    coin = tracker.events[-1]
    assert (coin.card, coin.confidence) == ("JK", 1.0)


def test_after_a_blind_spell_several_events_are_found_together():
    """Three minions laid while the camera saw nothing, one view after them: two events
    are not enough to explain it; a blind spell's depth is."""
    table = start("jaina", "garrosh", turn=11)  # 6 crystals
    truth = table.game.copy()
    missed = [Play(player="p1", card=card) for card in ("2H", "6D", "7C")]
    for event in missed:
        truth.apply(event)
    seen = expected_view(truth)
    assert not explain(table.game, seen).explained
    found = explain(table.game, seen, depth=BLIND_DEPTH)
    assert found.explained and not found.illegal
    assert sorted(e.card for e in found.events) == sorted(e.card for e in missed)


def test_totemic_call_is_read_though_a_card_shown_before_went_to_the_pile():
    """A spell shown on its way to the pile is among the hints when Thrall turns his hero
    card: the cards turned over are the ones that may lie in the deck, the totem first."""
    table = start("thrall", "garrosh", turn=5)
    table.play("p1", "JH", target="p2")  # Lightning Bolt, shown, then on the pile
    assert table.game.table.where("JH") == "discard"
    truth = table.game.copy()
    truth.apply(call := parse_event({"type": "hero_power", "player": "p1",
                                     "revealed": ["5D"]}))
    assert [m.card for m in truth.sides["p1"].minions] == ["5D"]  # Wrath of Air Totem
    found = explain(table.game, expected_view(truth), Hints(revealed=("JH",)))
    assert found.events == [call] and found.explained


def test_a_hero_power_seen_before_its_target_died_is_explained_again():
    """Jaina's hero card is turned before the minion she pings is put on the pile: the first
    view reads as Fireblast at a hero, the next would need a second Fireblast (illegal);
    the two views are one move, explained again from before it."""
    table = start("jaina", "garrosh", turn=4)
    table.play("p2", "6H")
    table.end_turn()
    tracker = LiveTracker()
    tracker.game = table.game.copy()
    midway = table.game.copy()
    midway.apply(parse_event({"type": "hero_power", "player": "p1", "target": "p2"}))
    tracker.seen(expected_view(midway))  # the hero card turned, 6H not yet gone
    truth = table.game.copy()
    truth.apply(ping := parse_event({"type": "hero_power", "player": "p1", "target": "6H"}))
    tracker.seen(expected_view(truth))
    assert [e.model_copy(update={"source": None, "confidence": None})
            for e in tracker.events[len(table.game.events):]] == [ping]
    assert not tracker.game.alerts


def test_a_spell_on_the_pile_seen_again_is_not_the_opponent_s_secret_turned_over():
    """Garrosh's Whirlwind (JD) is one of Uther's secret cards too: seen again under the
    pile's top, it is not Uther's face-down secret turned over, since the game has it on
    the pile."""
    table = start("garrosh", "uther", turn=4)
    tracker = LiveTracker()
    tracker.game = table.game.copy()
    truth = table.game.copy()
    truth.apply(Play(player="p2", card="JS"))  # a secret, face down
    tracker.seen(expected_view(truth))
    tracker.phone(EndTurn())
    truth.apply(EndTurn())
    truth.apply(Play(player="p1", card="JD"))
    tracker.seen(expected_view(truth))
    truth.apply(Play(player="p1", card="2H"))
    tracker.seen(expected_view(truth), Hints(revealed=("JD",)))  # a corner of the pile
    played = [(e.player, e.card) for e in tracker.events if e.type == "play"]
    assert ("p1", "JD") in played and ("p2", "JD") not in played
    assert played[-1] == ("p1", "2H")


def test_arcane_missiles_shared_among_targets_is_read_from_the_markers():
    """Split damage's points may go anywhere: every way to share them is tried, and the
    one the markers show is found (sampling one spread at random missed it)."""
    table = start("jaina", "garrosh", turn=6)
    table.play("p2", "2H")
    table.play("p2", "6C")
    table.end_turn()
    truth = table.game.copy()
    truth.apply(missiles := Play(player="p1", card="JD", target=["2H", "p2", "6C"]))
    assert [m.card for m in truth.sides["p2"].minions] == ["2H"]  # 6C died, 2H marked
    found = explain(table.game, expected_view(truth))
    assert found.explained  # 6C hit twice looks the same: a question, the truth among it
    assert sorted(missiles.targets) in [sorted(option[0].targets) for option in
                                        [found.events, *found.alternatives]]


def test_a_card_picked_up_from_the_discard_pile_and_played_again_is_flagged():
    """The pile's top card is known to the game (on the pile), so it is no new card; laid
    in a minion row it is one played again, and the play is illegal (issue 44)."""
    table = start("garrosh", "jaina", turn=1)
    table.play("p1", "6H")
    table.end_turn()
    table.play("p2", "JK")
    table.power("p2", target="6H")  # Fireblast: 6H goes to the discard pile
    table.end_turn()
    assert expected_view(table.game).discard_top == "6H"
    truth = table.game.copy()
    truth.apply(again := Play(player="p1", card="6H"))
    assert [a.code for a in truth.alerts] == ["card_in_discard"]
    found = explain(table.game, expected_view(truth))
    assert found.events == [again] and found.illegal == 1


def test_a_minion_killed_and_not_yet_carried_off_is_not_played_again():
    """The view right after a trade: the attacker has its damage markers, and the minion it
    killed still lies in its row. That minion is no card picked up from the pile and played
    again (an illegal play, flagged) but one not yet carried off: the trade alone, a move
    caught midway that the next view completes."""
    table = start("garrosh", "jaina", turn=13)
    table.play("p1", "5S")
    table.end_turn()
    table.play("p2", "4D")
    table.end_turn()
    before, after = expected_view(table.game), table.game.copy()
    after.apply(Attack(attacker="5S", target="4D"))
    assert after.alerts == [] and expected_view(after).sides["p2"].minions == ()
    seen = replace(expected_view(after), sides={**expected_view(after).sides,
                                                "p2": before.sides["p2"]},
                   discard=before.discard)
    found = explain(table.game, seen, Hints(attackers=("5S",)))
    assert not any(isinstance(e, Play) for e in found.events) and found.illegal == 0
    assert not found.explained  # the next view, 4D gone to the pile, explains it


def test_totemic_call_s_totem_is_the_last_card_it_turned_over():
    """The camera sees the cards turned over beside the deck; the totem among them stays
    face up in play, so it is not among the cards seen shown (issue 44: a 9S totem read as
    the 4/4 minion played from hand)."""
    table = start("jaina", "thrall", turn=2)
    table.play("p2", "JK")
    table.power("p2", revealed=["5H"])  # Stoneclaw Totem
    table.end_turn(2)
    truth = table.game.copy()
    truth.apply(call := HeroPower(player="p2", revealed=["2H", "9S"]))
    assert [(m.id, m.attack, m.health) for m in truth.state().players["p2"].minions] == [
        ("5H", 0, 2), ("9S", 0, 2)]
    found = explain(table.game, expected_view(truth), Hints(revealed=("2H",)))
    assert found.events == [call] and not found.illegal


def test_a_card_a_full_hand_discards_is_named_not_taken_for_a_spell():
    """p2 ends turn 10 with eleven cards: one goes to the pile, a card the rules cannot
    name. The camera sees it there (JH, which is Whirlwind for p1, who now acts): it is
    the discard, named on the end of turn, not a Whirlwind cast (issue 44: a deck-end
    game's discards read as spells at the heroes)."""
    tracker = LiveTracker()
    tracker.game = start("garrosh", "uther", turn=10).game
    tracker.phone(EndTurn())
    assert tracker.game.table.discard == [None]
    seen = replace(expected_view(tracker.game), discard=("JH",))
    tracker.seen(seen)
    assert [e.type for e in tracker.events[-1:]] == ["end_turn"]
    assert tracker.events[-1].discarded == ["JH"] and tracker.game.table.discard == ["JH"]
    assert not tracker.game.alerts and tracker.unexplained == 0


def test_a_minion_seen_slid_forward_attacks_in_the_explanation_though_nothing_shows_it():
    """An attack on a hero leaves no marker: the slide is all the camera has. An
    explanation that leaves the slid minion out (the hero power alone) is not the nearer
    for being shorter."""
    table = start("jaina", "garrosh", turn=5)
    table.play("p1", "2H")
    table.end_turn(2)
    truth = table.game.copy()
    truth.apply(attack := Attack(attacker="2H", target="p2"))
    truth.apply(ping := parse_event({"type": "hero_power", "player": "p1", "target": "p2"}))
    found = explain(table.game, expected_view(truth), Hints(attackers=("2H",)))
    assert attack in found.events and ping.type in [e.type for e in found.events]


def test_fanned_markers_seen_short_cost_less_than_markers_seen_in_excess():
    """Armor and a weapon's durability lie fanned, each marker over part of the next: one
    hidden is likelier than one too many, and an explanation is judged so."""
    table = start("garrosh", "jaina", turn=5)
    table.power("p1")  # Armor Up!: two armor markers
    table.play("p1", "QD")  # Fiery War Axe: two durability markers
    rules = expected_view(table.game)
    assert (rules.sides["p1"].armor, rules.sides["p1"].durability) == (2, 2)

    def seen(armor: int, durability: int) -> TableView:
        side = replace(rules.sides["p1"], armor=armor, durability=durability)
        return replace(rules, sides={**rules.sides, "p1": side})

    assert view_distance(rules, seen(1, 2)) < view_distance(rules, seen(3, 2))
    assert view_distance(rules, seen(2, 1)) < view_distance(rules, seen(2, 3))


def test_a_spell_shown_in_the_attack_zone_is_cast_though_the_pile_still_shows_the_card_under():
    """The Coin is held up in its player's attack zone, then laid on the pile where it is
    not read: the pile shows a card under it. Shown and held there, it was cast."""
    table = start("jaina", "garrosh", turn=3)
    table.play("p1", "6H")
    table.end_turn()
    table.play("p2", "JD")  # Whirlwind: 6H, then JD to the pile
    assert expected_view(table.game).discard_top == "JD"
    truth = table.game.copy()
    truth.apply(coin := Play(player="p2", card="JK"))
    seen = replace(expected_view(truth), discard=("6H",))  # read from a corner under it
    found = explain(table.game, seen, Hints(attackers=("JK",), revealed=("JK",)))
    assert found.events == [coin]


def test_only_a_hero_power_that_turns_cards_over_is_tried_with_the_cards_shown():
    """Cards shown are Totemic Call's turned over, never Reinforce's: a hero power that
    turns nothing over does not take a shown card for its own."""
    for hero, turns in (("uther", False), ("thrall", True)):
        table = start(hero, "garrosh", turn=5)
        found = candidates(table.game, expected_view(table.game), random.Random(0),
                           Hints(attackers=("JH",), revealed=("JH",)))
        uses = [e for e in found if e.type == "hero_power"]
        assert any(e.revealed for e in uses) == turns


def test_a_missing_first_buff_marker_costs_a_marker_and_one_hidden_under_it_less():
    """The first +1/+1 marker under a minion shows its strip; the next ones hide under it:
    the first one not seen is a whole marker miscounted, a second one hardly anything."""
    table = start("malfurion", "garrosh", turn=5)
    table.play("p1", "3S", choice=1)  # Bear Form: a +1/+1 marker under it
    rules = expected_view(table.game)
    bear = rules.sides["p1"].minions[0]
    assert bear.buffs == 1

    def with_buffs(view: TableView, buffs: int) -> TableView:
        side = replace(view.sides["p1"], minions=(replace(bear, buffs=buffs),))
        return replace(view, sides={**view.sides, "p1": side})

    assert view_distance(rules, with_buffs(rules, 0)) == 1.0
    assert view_distance(with_buffs(rules, 2), with_buffs(rules, 1)) < 0.5


def test_an_armed_hero_s_attack_is_found_though_its_tilt_was_not_seen():
    """A hero with a weapon attacks a minion: the camera missed the hero card's tilt, but
    the minion gone and the weapon's marker taken say it."""
    table = start("garrosh", "jaina", turn=4)
    table.play("p2", "6H")
    table.end_turn()
    table.play("p1", "QD")  # Fiery War Axe, 3/2
    truth = table.game.copy()
    truth.apply(swing := Attack(attacker="p1", target="6H"))
    found = explain(table.game, expected_view(truth))  # no hint of a tilt
    assert found.events == [swing] and found.explained


def test_an_unnamed_minion_stands_for_the_minion_the_rules_put_there():
    """Totemic Call turns its totem over (shown, so named on the way), then the camera
    cannot name it in the row: the unnamed minion is the totem, not a minion missing."""
    table = start("thrall", "garrosh", turn=5)
    truth = table.game.copy()
    truth.apply(call := parse_event({"type": "hero_power", "player": "p1",
                                     "revealed": ["JS"]}))
    rules = expected_view(truth)
    unnamed = replace(rules.sides["p1"].minions[0], id="unnamed@449", card=UNNAMED)
    seen = replace(rules, sides={**rules.sides, "p1": replace(rules.sides["p1"],
                                                            minions=(unnamed,))})
    assert view_distance(rules, seen) == 0.0
    found = explain(table.game, seen, Hints(attackers=("JS",), revealed=("JS",)))
    assert found.events == [call] and found.explained


def test_a_rule_broken_plainly_stays_flagged_and_is_not_taken_for_half_a_move():
    """A view explained only by breaking a rule may show the last one was half a move; not
    when the table did not change, when a shorter story leaves part of it unexplained, or
    when it would take back a card the camera saw laid."""
    opening = play_game(("jaina", "garrosh"), seed=0, sensible=True).events[:3]
    twice = [*opening, *[EndTurn()] * 3, parse_event({"type": "hero_power", "player": "p2"}),
             parse_event({"type": "hero_power", "player": "p2"})]  # Armor Up! twice
    again = [*opening, Play(player="p1", card="6H"), EndTurn(), EndTurn(),
             Attack(attacker="6H", target="p2"), Attack(attacker="6H", target="p2")]
    replayed = [*opening, Play(player="p1", card="6D"),
                Play(player="p1", card="JH", target="6D"), EndTurn(), EndTurn(),
                Play(player="p1", card="6D")]
    # the slide of a minion just laid is a slide though the story before it lacks it
    exhausted = [*opening, Play(player="p1", card="6H"), Attack(attacker="6H", target="p2")]
    for events, code in ((twice, "hero_power_used"), (again, "already_attacked"),
                         (replayed, "card_in_discard"), (exhausted, "attacker_exhausted")):
        tracker, _, _ = track_perfectly(events)
        assert code in {a.code for a in tracker.game.alerts}, code
