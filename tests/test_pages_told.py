"""Issue 56, items 2 and 3, through the phone in Chromium: what a player tells the phone
is kept as it happened at the table. A "when" secret told after the attack it answers
stops the attack; a spell of one name in every suit, tapped by its rank, is kept by its
rank alone, so that the other player's card of the same rank is never greyed out.

Every wait is on what the page or the server says, never on time.
"""

from __future__ import annotations

import re

from test_pages import (  # the fixtures, by name
    animations_done,
    browser,
    expect,
    live,
    pages,
    server,
    shot,
    start_game,
    state_of,
    tid,
)


def _events(page, count: int) -> None:
    """The page shows the game after its `count`-th event."""
    expect(page.locator(f"body[data-events='{count}']")).to_have_count(1, timeout=60_000)


def _logged(live) -> list[dict]:
    token = {"Authorization": f"Bearer {live.token}"}
    return live.get("/api/log", headers=token).json()["events"]


def test_vaporize_tapped_after_the_attack_on_the_phone_stops_the_attack(pages, live):
    """Jaina's K♠ (Vaporize) is set. Rexxar's 4♣ attacks Jaina (tapped: 4♣, Jaina): Jaina
    −4. Jaina says "Vaporize!": Secret lists it first, for it is due, and once tapped
    Jaina is back at her health, 4♣ is gone; Undo brings the attack back as it was told."""
    start_game(live, "jaina", "rexxar")
    for event in ({"type": "play", "player": "p1", "card": "KS"}, *[{"type": "end_turn"}] * 7,
                  {"type": "play", "player": "p2", "card": "4C"}, {"type": "end_turn"},
                  {"type": "end_turn"}):
        live.event(**event).raise_for_status()
    health = state_of(live)["players"]["p1"]["health"]
    phone = pages.phone()
    count = state_of(live)["events"]
    _events(phone, count)
    tid(phone, "minion-4C").click()
    tid(phone, "hero-p1").click()
    _events(phone, count + 1)
    assert state_of(live)["players"]["p1"]["health"] == health - 4
    tid(phone, "btn-secret").click()
    expect(tid(phone, "secret-0")).to_have_text(re.compile(r"K♠\s*Vaporize\s*at 4♣"))
    tid(phone, "secret-0").click()
    expect(tid(phone, "recent").locator("li").first).to_contain_text(
        "Jaina reveals the secret K♠")
    now = state_of(live)
    assert now["players"]["p1"]["health"] == health
    assert now["players"]["p2"]["minions"] == []
    expect(tid(phone, "hero-p1")).to_contain_text(str(health))
    animations_done(phone)
    shot(phone, "told-vaporize-after-the-attack")
    assert [e["type"] for e in _logged(live)[-2:]] == ["end_turn", "secret_revealed"]
    tid(phone, "btn-undo").click()
    tid(phone, "confirm-yes").click()
    _events(phone, count + 1)
    assert _logged(live)[-1]["type"] == "attack"
    assert state_of(live)["players"]["p1"]["health"] == health - 4


def test_a_spell_tapped_by_its_rank_never_greys_out_the_other_players_card(pages, live):
    """Jaina's Q is Frostbolt in every suit: one tap on Q and a target records it by its
    rank alone. Rexxar's Q♠ (Freezing Trap) is then offered, not greyed out "in the discard
    pile"; set, it is played; the deck and discard counts are those of the cards played."""
    start_game(live, "jaina", "rexxar")
    for _ in range(2):
        live.event("end_turn").raise_for_status()
    phone = pages.phone()
    count = state_of(live)["events"]
    _events(phone, count)
    before = state_of(live)
    tid(phone, "key-Q").click()  # no suit asked: Frostbolt in all four
    tid(phone, "hero-p2").click()
    _events(phone, count + 1)
    assert _logged(live)[-1] == {"type": "play", "player": "p1", "card": "Q", "target": "p2",
                                 "source": "phone"}
    expect(tid(phone, "recent").locator("li").first).to_contain_text("Jaina plays Q (Frostbolt)")
    after = state_of(live)
    assert (after["deck"], after["discard"]) == (before["deck"], before["discard"] + 1)
    live.event("end_turn").raise_for_status()
    _events(phone, count + 2)
    tid(phone, "key-Q").click()  # Rexxar's Qs are four secrets: the suit is asked
    expect(phone.locator("[data-testid=suits][data-loading]")).to_have_count(0)
    for suit in "SHDC":
        expect(tid(phone, f"suit-{suit}")).not_to_have_class(re.compile("not-legal"))
    expect(tid(phone, "suits")).not_to_contain_text("discard")
    shot(phone, "told-rank-alone-then-its-suit")
    tid(phone, "suit-S").click()
    _events(phone, count + 3)
    state = state_of(live)
    assert _logged(live)[-1]["card"] == "QS" and state["players"]["p2"]["secrets"] == 1
    assert not [a for a in state["alerts"] if a["event"] >= count]
    assert (state["deck"], state["discard"]) == (after["deck"] - 1, after["discard"])


def test_a_secret_told_after_the_blow_that_ended_the_game_is_still_offered(pages, live):
    """Jaina at 4 health: Rexxar's 4♣ attacks her, the game is over, and the bar offers
    New game, Undo and the Secret that blow set off. Vaporize, tapped, stops it: the game
    goes on with Jaina at 4."""
    start_game(live, "jaina", "rexxar")
    events = [{"type": "play", "player": "p1", "card": "KS"}, *[{"type": "end_turn"}] * 7]
    for _ in range(8):  # Steady Shot on each of Rexxar's turns: 16 damage
        events += [{"type": "hero_power", "player": "p2"}, {"type": "end_turn"},
                   {"type": "end_turn"}]
    events += [{"type": "play", "player": "p2", "card": "4C"}, {"type": "end_turn"},
               {"type": "end_turn"}]
    for event in events:
        live.event(**event).raise_for_status()
    phone = pages.phone()
    count = state_of(live)["events"]
    _events(phone, count)
    tid(phone, "minion-4C").click()
    tid(phone, "hero-p1").click()
    expect(tid(phone, "result")).to_be_visible()
    tid(phone, "btn-secret").click()
    expect(tid(phone, "secret-0")).to_have_text(re.compile(r"K♠\s*Vaporize\s*at 4♣"))
    animations_done(phone)
    shot(phone, "told-vaporize-after-the-last-blow")
    tid(phone, "secret-0").click()
    expect(tid(phone, "result")).to_be_hidden()
    now = state_of(live)
    assert not now["over"] and now["players"]["p1"]["health"] == 4
    expect(tid(phone, "health-p1")).to_have_text("4")
