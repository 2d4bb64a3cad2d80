"""Stable views from frame-by-frame sightings: names voted over frames, cards kept while a
hand passes over them, a change counted once it holds, an attack kept as a hint."""

from __future__ import annotations

from dataclasses import replace

from tracker.camera.stabilize import Sighting, Stabilizer
from tracker.camera.view import UNNAMED


def card(name: str, x: float, y: float, zone: str, confidence: float = 0.95,
         sideways: bool = False) -> Sighting:
    return Sighting(name, confidence, x, y, zone, sideways)


def run(stabilizer: Stabilizer, frames: list[list[Sighting]], start: int = 0) -> list:
    changes = []
    for number, seen in enumerate(frames, start):
        change = stabilizer.update(number, seen)
        if change:
            changes.append(change)
    return changes


def test_a_still_card_keeps_the_name_most_frames_give_it():
    frames = [[card("6H", 300, 420, "p1.minions")]] * 6
    frames += [[card("6D", 300, 420, "p1.minions", 0.6)], [card("UNKNOWN", 300, 420,
                                                                  "p1.minions", 0.3)]] * 3
    changes = run(Stabilizer(), frames)
    assert len(changes) == 1
    assert [m.card for m in changes[0].view.sides["p1"].minions] == ["6H"]


def test_a_hand_over_the_table_makes_no_card_vanish():
    table = [card("6H", 300, 420, "p1.minions"), card("KS", 450, 170, "p2.minions")]
    stabilizer = Stabilizer()
    changes = run(stabilizer, [table] * 8)
    for frame in range(8, 38):  # 6H covered for two seconds by a hand moving over it
        changes.append(stabilizer.update(frame, [table[1]], frozenset({"p1.minions"})))
    changes += run(stabilizer, [[table[1]]] * 5 + [table] * 8, start=38)  # it stops over it
    assert len([c for c in changes if c]) == 1  # the first stable view, and nothing after


def test_a_card_unseen_where_nothing_moves_is_gone():
    table = [card("6H", 300, 420, "p1.minions"), card("KS", 450, 170, "p2.minions")]
    changes = run(Stabilizer(), [table] * 20 + [[table[1]]] * 20)
    assert len(changes) == 2
    assert changes[1].view.sides["p1"].minions == ()


def test_no_card_comes_or_goes_while_a_hand_moves_in_its_zone():
    six = card("6H", 300, 420, "p1.minions")
    stabilizer = Stabilizer()
    run(stabilizer, [[six]] * 8)
    seven = card("7D", 380, 420, "p1.minions")
    moving = frozenset({"p1.minions"})
    assert all(stabilizer.update(f, [six, seven], moving) is None for f in range(8, 30))
    change = run(stabilizer, [[six, seven]] * 8, start=30)[0]
    assert [m.card for m in change.view.sides["p1"].minions] == ["6H", "7D"]


def test_a_change_counts_once_it_holds_and_an_attack_is_a_hint():
    six = card("6H", 300, 420, "p1.minions")
    enemy = card("KS", 450, 170, "p2.minions")
    frames = [[six, enemy]] * 8
    frames += [[card("6H", 300, 330, "p1.attack"), enemy]] * 3  # slid forward, and back
    frames += [[six, enemy, card("BACK", 450, 190, "p2.minions", sideways=True)]] * 8
    changes = run(Stabilizer(), frames)
    assert len(changes) == 2
    after = changes[1]
    assert after.hints.attackers == ("6H",)
    assert after.view.sides["p2"].minions[0].damage == 1
    assert not after.view.sides["p1"].minions[0].attacking


def test_zones_make_the_view():
    frames = [[card("AS", 340, 535, "p1.weapon"),
               card("BACK", 340, 545, "p1.weapon", sideways=True),
               card("BACK", 340, 550, "p1.weapon", sideways=True),
               card("BACK", 560, 535, "p1.armor"),
               card("BACK", 700, 60, "p2.secrets"),
               card("QH", 835, 300, "discard")]] * 8
    view = run(Stabilizer(), frames)[0].view
    assert view.sides["p1"].weapon == "AS" and view.sides["p1"].durability == 2
    assert view.sides["p1"].armor == 1 and view.sides["p2"].secrets == 1
    assert view.discard_top == "QH"


def test_a_hero_card_turned_sideways_is_a_hero_power_used():
    hero = card("UNKNOWN", 450, 535, "p1.hero", 0.9, sideways=True)  # no name: not one of 53
    view = run(Stabilizer(), [[hero]] * 8)[0].view
    assert view.sides["p1"].power_used is True and view.sides["p2"].power_used is None


def test_a_sure_guess_names_a_card_the_recogniser_would_not_and_a_stack_is_one_token():
    top = Sighting("UNKNOWN", 0.99, 835, 300, "discard", guess="JK")  # a pile's top card
    unsure = Sighting("UNKNOWN", 0.6, 700, 180, "p2.minions", guess="9S")
    stack = [card("BACK", 300 + dx, 420, "p1.minions") for dx in (0, 4, 8)]  # one token
    minion = card("6H", 500, 420, "p1.minions")
    marker = card("BACK", 505, 430, "p1.minions", sideways=True)
    view = run(Stabilizer(), [[top, unsure, *stack, minion, marker]] * 8)[0].view
    assert view.discard_top == "JK"
    # an unsure guess names nothing: a card face up alone in the row, unnamed
    assert [m.card for m in view.sides["p2"].minions] == [UNNAMED]
    p1 = view.sides["p1"].minions
    assert [(m.card, m.damage) for m in p1] == [(None, 0), ("6H", 1)]


def test_a_card_carried_across_a_zone_is_not_on_the_table():
    six = card("6H", 300, 420, "p1.minions")
    carried = [card("BACK", 520 + 40 * i, 540 + (i % 2) * 2, "p1.armor") for i in range(3)]
    frames = [[six]] * 8 + [[six, c] for c in carried for _ in range(2)] + [[six]] * 8
    changes = run(Stabilizer(), frames)
    assert len(changes) == 1  # the markers passing by were never armor
    assert changes[0].view.sides["p1"].armor == 0


def test_nothing_counts_while_a_card_lies_in_an_attack_zone():
    six = card("6H", 300, 420, "p1.minions")
    enemy = card("KS", 450, 170, "p2.minions")
    frames = [[six, enemy]] * 8 + [[card("6H", 300, 330, "p1.attack"), enemy]] * 10
    frames += [[six, enemy]] * 8  # an attack on the hero: the table looks as before
    changes = run(Stabilizer(), frames)
    assert len(changes) == 2
    assert changes[1].frame >= 18 and changes[1].hints.attackers == ("6H",)
    assert not changes[1].view.sides["p1"].minions[0].attacking


def test_a_token_back_from_an_attack_is_not_waited_for_as_if_covered():
    """A face-down token slid forward and held there a while (long enough for a card lying
    still to be taken as covered when unseen), then slid back: the attack counts as soon
    as the table holds, not once the token's place in the attack zone has been empty for
    as long as a hand may rest on a card."""
    token = card("BACK", 300, 420, "p1.minions")
    enemy = card("KS", 450, 170, "p2.minions")
    frames = [[token, enemy]] * 8 + [[card("BACK", 300, 330, "p1.attack"), enemy]] * 12
    frames += [[token, enemy]] * 12
    changes = run(Stabilizer(), frames)
    assert len(changes) == 2 and changes[1].hints.attackers == ("token",)
    assert changes[1].frame <= 20 + 7  # back at 20: gone (2), held (3), and a frame or two


def test_a_card_laid_on_another_in_the_same_place_takes_over():
    frames = [[card("QH", 835, 300, "discard")]] * 30
    # laid a few millimetres off, on the pile, covering most of it
    frames += [[card("5C", 841, 304, "discard"), card("UNKNOWN", 831, 296, "discard", 0.3)]] * 8
    changes = run(Stabilizer(), frames)
    assert [c.view.discard_top for c in changes] == ["QH", "5C"]


def test_a_card_seen_elsewhere_leaves_where_it_was():
    frames = [[card("6H", 300, 420, "p1.minions")]] * 20 + [[card("6H", 835, 300, "discard")]] * 8
    changes = run(Stabilizer(), frames)
    assert changes[-1].view.sides["p1"].minions == ()
    assert changes[-1].view.discard_top == "6H"


def test_flush_gives_the_table_as_it_lies_before_it_holds():
    stabilizer = Stabilizer()
    run(stabilizer, [[card("6H", 300, 420, "p1.minions")]] * 8)
    run(stabilizer, [[card("6H", 300, 420, "p1.minions"), card("7D", 380, 420, "p1.minions")]]
        * 3, start=8)
    change = stabilizer.flush(10)
    assert change is not None
    assert [m.card for m in change.view.sides["p1"].minions] == ["6H", "7D"]
    assert stabilizer.flush(11) is None  # nothing new since


def test_a_hero_card_held_tilted_is_its_hero_attacking():
    hero = Sighting("HERO", 1.0, 450, 535, "p1.hero")
    tilted = Sighting("HERO", 1.0, 451, 534, "p1.hero", tilted=True)
    enemy = card("KS", 450, 170, "p2.minions")
    marker = card("BACK", 450, 190, "p2.minions", sideways=True)
    frames = [[hero, enemy]] * 8 + [[tilted, enemy]] * 4 + [[tilted, enemy, marker]] * 6
    stabilizer = Stabilizer()
    changes = run(stabilizer, frames)
    assert len(changes) == 1  # nothing counts while the hero card is tilted …
    changes = run(stabilizer, [[hero, enemy, marker]] * 8, start=len(frames))
    assert len(changes) == 1  # … and once it is upright again, its attack is a hint
    assert changes[0].hints.attackers == ("p1",)
    assert changes[0].view.sides["p2"].minions[0].damage == 1
    assert changes[0].view.sides["p1"].power_used is False


def test_a_hero_card_seen_tilted_in_one_frame_is_no_attack():
    hero = Sighting("HERO", 1.0, 450, 535, "p1.hero")
    tilted = Sighting("HERO", 1.0, 451, 534, "p1.hero", tilted=True)
    enemy = card("KS", 450, 170, "p2.minions")
    marker = card("BACK", 450, 190, "p2.minions", sideways=True)
    changes = run(Stabilizer(), [[hero, enemy]] * 8 + [[tilted, enemy]]
                  + [[hero, enemy, marker]] * 8)
    assert len(changes) == 2 and changes[1].hints.attackers == ()


def test_a_face_up_card_tucked_under_a_minion_is_a_spell_that_buffs_it():
    minion = card("3C", 190, 421, "p1.minions")
    strip = card("UNKNOWN", 191, 404, "p1.minions", 0.4)  # its index hidden by the minion
    enemy = card("7S", 702, 180, "p2.minions")
    named = card("JC", 702, 197, "p2.minions")  # a spell rank beside a minion: under it
    view = run(Stabilizer(), [[minion, strip, enemy, named]] * 8)[0].view
    assert [(m.card, m.spells) for m in view.sides["p1"].minions] == [("3C", (UNNAMED,))]
    assert [(m.card, m.spells) for m in view.sides["p2"].minions] == [("7S", ("JC",))]
    alone = run(Stabilizer(), [[card("JC", 400, 180, "p2.minions")]] * 8)[0].view
    assert [m.card for m in alone.sides["p2"].minions] == ["JC"]  # a totem, say: no minion


def test_a_joker_guessed_on_the_pile_is_the_coin_there():
    coin = Sighting("UNKNOWN", 0.6, 835, 300, "discard", guess="JK")  # the pile's top
    card = Sighting("UNKNOWN", 0.6, 835, 300, "discard", guess="9S")
    assert run(Stabilizer(), [[coin]] * 8)[0].view.discard_top == "JK"
    assert run(Stabilizer(), [[card]] * 8) == []  # an unsure guess names nothing


def test_a_card_under_the_pile_s_top_read_again_is_not_a_card_shown():
    """The pile's lower cards show their corners and are named now and then: such a card
    is not a spell shown between two views (it was shown when it came)."""
    minion = card("6H", 300, 420, "p1.minions")
    lower = Sighting("UNKNOWN", 0.9, 835, 300, "discard", guess="JD")
    top = Sighting("UNKNOWN", 0.95, 845, 290, "discard", guess="9S")  # laid askew on it
    stabilizer = Stabilizer()
    first = run(stabilizer, [[minion, lower]] * 8)
    assert first[-1].view.discard_top == "JD"
    later = run(stabilizer, [[minion, top]] * 8 + [[minion, top, lower]] * 4
                + [[top]] * 20, start=8)  # JD's corner read again; then 6H goes
    assert later[-1].view.discard_top == "9S" and later[-1].hints.revealed == ()


def test_an_unnamed_strip_towards_the_minion_s_owner_is_a_buff_marker():
    """A +1/+1 marker shows its back's strip towards the minion's owner; a buff spell its
    face towards the opponent (`docs/table.md`): unnamed, the side tells them apart."""
    mine, theirs = card("3C", 190, 421, "p1.minions"), card("7S", 702, 180, "p2.minions")
    marker = card("UNKNOWN", 190, 433, "p1.minions", 0.4)  # p1 sits at y = 600
    spell = card("UNKNOWN", 702, 197, "p2.minions", 0.4)  # towards p1: p2's opponent
    view = run(Stabilizer(), [[mine, marker, theirs, spell]] * 8)[0].view
    assert [(m.card, m.buffs, m.spells) for m in view.sides["p1"].minions] == [("3C", 1, ())]
    assert [(m.card, m.buffs, m.spells) for m in view.sides["p2"].minions] == \
        [("7S", 0, (UNNAMED,))]


def test_one_card_laid_on_the_pile_and_named_two_ways_is_named_by_the_frames_votes():
    """The recogniser may find the pile's new top twice, naming it two ways: both names
    came at once, and the one the frames give more often is the top."""
    right = [Sighting("UNKNOWN", 0.9, 838, 296, "discard", guess="JH"),
             Sighting("UNKNOWN", 0.87, 836, 297, "discard", guess="JH")]
    wrong = Sighting("UNKNOWN", 0.84, 832, 296, "discard", guess="JC")
    first = replace(wrong, confidence=0.95)  # read best in the first frame: its trail first
    assert run(Stabilizer(), [[first, *right]] + [[wrong, *right]] * 8)[0].view.discard_top \
        == "JH"


def test_a_card_laid_on_the_pile_comes_when_named_though_a_lower_corner_is_confirmed_later():
    """JD laid on the pile by a hand that lingers: the trail under it takes JD's name at
    once, and a corner of the joker under it, read while the hand moves, is confirmed
    frames later. Both came with the hand: the frames' votes make JD the top."""
    pile = Sighting("UNKNOWN", 0.85, 836, 300, "discard", guess="6H")  # read at a glance
    laid = Sighting("JD", 1.0, 837, 303, "discard")
    corner = Sighting("UNKNOWN", 0.69, 834, 291, "discard", guess="JK")
    stabilizer = Stabilizer()
    assert run(stabilizer, [[pile]] * 10)[-1].view.discard_top == "6H"
    hand = frozenset({"discard"})
    for frame in range(10, 16):
        stabilizer.update(frame, [laid, corner], hand)
    later = run(stabilizer, [[laid, corner]] * 10, start=16)
    assert later[-1].view.discard_top == "JD"


def test_a_weapon_half_hidden_by_its_markers_is_named_by_an_unsure_guess():
    """The weapon zone holds nothing face up but a weapon: under its markers the
    recogniser abstains on it, yet its guess names it (elsewhere an unsure guess does not)."""
    axe = Sighting("UNKNOWN", 0.6, 334, 534, "p1.weapon", guess="QC")
    markers = [card("BACK", 332, 537, "p1.weapon", sideways=True),
               card("BACK", 336, 520, "p1.weapon", sideways=True)]
    view = run(Stabilizer(), [[axe, *markers]] * 8)[0].view
    assert (view.sides["p1"].weapon, view.sides["p1"].durability) == ("QC", 2)
    minion = Sighting("UNKNOWN", 0.6, 300, 420, "p1.minions", guess="6H")
    view = run(Stabilizer(), [[minion]] * 8)[0].view
    assert [m.card for m in view.sides["p1"].minions] == [UNNAMED]  # a minion, unnamed


def test_a_card_peeking_out_under_a_minion_towards_its_owner_is_a_buff_marker():
    """Fel Pact's +1/+1 markers lie face down under the minion, peeking out towards its
    owner; the recogniser abstains on the strip they show and may guess a face there (4S,
    surely enough to count): that is no minion played (issue 44: a phantom 4S, a legal game
    flagged not_enough_mana)."""
    minion = card("6S", 196, 422, "p1.minions", 1.0)
    strip = Sighting("UNKNOWN", 0.86, 196, 442, "p1.minions", guess="4S")
    enemy = card("8S", 700, 180, "p2.minions", 1.0)
    blank = card("UNKNOWN", 701, 160, "p2.minions", 0.5)  # towards p2, who sits at y = 0
    view = run(Stabilizer(), [[minion, strip, enemy, blank]] * 8)[0].view
    assert [(m.card, m.buffs, m.spells) for m in view.sides["p1"].minions] == [("6S", 1, ())]
    assert [(m.card, m.buffs, m.spells) for m in view.sides["p2"].minions] == [("8S", 1, ())]


def test_a_spell_shown_in_an_attack_zone_is_named_by_an_unsure_guess():
    """A spell is shown in its caster's attack zone while it resolves: the recogniser's
    unsure guess names it there, and it is a card shown between two views."""
    minion = card("6S", 194, 423, "p1.minions")
    spell = Sighting("UNKNOWN", 0.6, 712, 297, "p2.attack", guess="QC")
    stabilizer = Stabilizer()
    run(stabilizer, [[minion]] * 8)
    changes = run(stabilizer, [[minion, spell]] * 4 + [[]] * 20, start=8)
    assert changes[-1].hints.revealed == ("QC",)


def test_a_secret_laid_over_part_of_another_keeps_it_on_the_table():
    """Secrets are fanned, each over part of the one before: the camera may find only the
    top one, and the one under it is still there until the top one goes."""
    first = card("BACK", 241, 534, "p1.secrets", 1.0)
    second = card("BACK", 215, 536, "p1.secrets", 1.0)  # 26 mm along, over its edge
    stabilizer = Stabilizer()
    assert run(stabilizer, [[first]] * 8)[-1].view.sides["p1"].secrets == 1
    changes = run(stabilizer, [[second]] * 60, start=8)  # the first one not found again
    assert changes[-1].view.sides["p1"].secrets == 2
    later = run(stabilizer, [[first]] * 20, start=68)  # the top one revealed: gone
    assert later[-1].view.sides["p1"].secrets == 1


def test_a_secret_found_twice_is_one_card_and_a_hand_over_it_does_not_move_it():
    secret = card("BACK", 660, 60, "p2.secrets", 1.0)
    twice = Sighting("UNKNOWN", 1.0, 668, 66, "p2.secrets", guess="BACK")
    stabilizer = Stabilizer()
    assert run(stabilizer, [[secret, twice]] * 8)[-1].view.sides["p2"].secrets == 1
    hand = frozenset({"p2.secrets"})
    for frame, (x, y) in enumerate([(667, 65), (674, 70), (674, 70)], start=8):
        stabilizer.update(frame, [replace(secret, x=x, y=y)], hand)  # found under a hand
    resting = run(stabilizer, [[replace(secret, x=674, y=70)]] * 2, start=11)  # it rests
    changes = resting + run(stabilizer, [[secret]] * 20, start=13)
    assert all(c.view.sides["p2"].secrets == 1 for c in changes)
    assert [t.x for t in stabilizer.trails if t.zone == "p2.secrets" and t.on_table] == [660]


def test_two_secrets_found_at_their_edges_keep_to_their_own_cards():
    """The card under another is found at its uncovered edge, nearer the card above than
    its own centre, and sometimes twice: each sighting goes to the nearest secret, nearest
    pairs first, and the card stays two cards."""
    under = card("BACK", 660, 65, "p2.secrets", 1.0)
    above = card("BACK", 681, 65, "p2.secrets", 1.0)
    stabilizer = Stabilizer()
    assert run(stabilizer, [[under, above]] * 8)[-1].view.sides["p2"].secrets == 2
    edge = replace(under, x=671)  # surer than the card above, as found
    found_above = replace(above, x=684, confidence=0.999)
    twice = Sighting("UNKNOWN", 1.0, 672, 74, "p2.secrets", guess="BACK")
    frames = [[edge, found_above], [twice, edge, found_above]] * 15
    changes = run(stabilizer, frames, start=8)
    assert all(c.view.sides["p2"].secrets == 2 for c in changes)
    assert sum(t.on_table for t in stabilizer.trails if t.zone == "p2.secrets") == 2


def test_a_spell_s_strip_read_as_a_minion_is_still_a_spell_under_the_minion():
    """No minion lies a strip's width from another: a card named as a minion, less surely
    than the card it peeks out from under towards the opponent, is a buff spell misread.
    Towards the owner, or named more surely, it is not."""
    minion = card("10C", 191, 420, "p1.minions", 1.0)
    strip = Sighting("UNKNOWN", 0.92, 190, 401, "p1.minions", guess="9C")  # towards p2
    view = run(Stabilizer(), [[minion, strip]] * 8)[0].view
    assert [(m.card, m.spells) for m in view.sides["p1"].minions] == [("10C", (UNNAMED,))]
    laid = card("9S", 195, 420, "p1.minions", 1.0)
    other = Sighting("UNKNOWN", 0.91, 195, 440, "p1.minions", guess="10S")  # towards p1
    view = run(Stabilizer(), [[laid, other]] * 8)[0].view
    assert "9S" in [m.card for m in view.sides["p1"].minions]


def test_a_card_face_up_alone_in_the_minion_row_that_no_frame_names_is_an_unnamed_minion():
    """A totem turned over is read only as an unsure guess: it is a minion all the same,
    whose name the camera could not read. A strip beside a named minion is not one."""
    totem = Sighting("UNKNOWN", 0.5, 449, 179, "p2.minions", guess="JS")
    minion = card("2C", 704, 179, "p2.minions", 1.0)
    strip = Sighting("UNKNOWN", 0.4, 704, 197, "p2.minions")  # under 2C, towards p1
    view = run(Stabilizer(), [[totem, minion, strip]] * 8)[0].view
    assert sorted((m.card, m.spells) for m in view.sides["p2"].minions) == \
        [("2C", (UNNAMED,)), (UNNAMED, ())]
