"""Issue 56: a newcomer's whole game (Jaina against Rexxar), tapped on the phone page in
Chromium at 390×844, and what it showed wrong: a secret's name shown to the opponent, the
keypad over the bottom player's minions, toasts over the top hero and cut short, card names
broken mid-word, refusals that did not say why, secret controls out of step, the overlay's
needless 404, a heal shown for an undo, the demo's history, and a screen that locks.

Every wait is on what a page or the server says (text, attributes, a state), never on time.
"""

from __future__ import annotations

import os
import re

import pytest
from test_pages import (  # the fixtures too: browser, live, pages, server
    DOCS,
    OVERLAY,
    PHONE,
    Pages,
    browser,
    expect,
    live,
    pages,
    server,
    shot,
    tid,
    write_docs_png,
)

# --- boards --------------------------------------------------------------------------------------

# Jaina (p1) against Rexxar (p2), five minions a side, Jaina to play on turn 11 with 6 mana.
FULL_BOARD = [
    ("mulligan", {"player": "p1", "count": 1}), ("mulligan", {"player": "p2", "count": 0}),
    ("play", {"player": "p1", "card": "6H"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "JK"}), ("play", {"player": "p2", "card": "7S"}),
    ("end_turn", {}),
    ("play", {"player": "p1", "card": "2S"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "2C"}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "3D"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "3H"}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "4H"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "4D"}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "9C"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "5S"}), ("end_turn", {}),
]

# Valeera (p1) against Thrall (p2), as in the demo: five minions a side with totems, a weapon
# on each hero (the hero lines wrap), overload locked, damage; Valeera to play on turn 11.
WEAPONS_BOARD = [
    ("mulligan", {"player": "p1", "count": 1}), ("mulligan", {"player": "p2", "count": 0}),
    ("play", {"player": "p1", "card": "6H"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "JK"}), ("play", {"player": "p2", "card": "QD"}),
    ("end_turn", {}),
    ("hero_power", {"player": "p1"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "6C"}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "3C"}), ("end_turn", {}),
    ("hero_power", {"player": "p2", "revealed": ["5H"]}),
    ("play", {"player": "p2", "card": "6D"}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "4H"}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "2S"}),
    ("hero_power", {"player": "p2", "revealed": ["5D"]}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "9C"}), ("end_turn", {}),
    ("attack", {"attacker": "p2", "target": "4H"}), ("end_turn", {}),
    ("play", {"player": "p1", "card": "7D"}), ("hero_power", {"player": "p1"}),
]

# … and on Rexxar's turn 12 with Jaina's Vaporize set: the bar has its Secret button too
SECRET_BOARD = [*FULL_BOARD, ("play", {"player": "p1", "card": "KS"}), ("end_turn", {})]

BOARDS = {"jaina-rexxar": (("jaina", "rexxar"), FULL_BOARD),
          "rexxar-to-play-jaina-secret": (("jaina", "rexxar"), SECRET_BOARD),
          "valeera-thrall": (("valeera", "thrall"), WEAPONS_BOARD)}


def new_game(live, p1: str = "jaina", p2: str = "rexxar", events=()) -> None:
    live.post("/api/new-game", {"heroes": {"p1": p1, "p2": p2}}).raise_for_status()
    for kind, fields in events:
        live.event(kind, **fields)
    assert live.get("/api/state").json()["alerts"] == [], "the board breaks no rule"


def newcomer(live, events=()) -> None:
    """Jaina (p1) against Rexxar (p2), both mulligans kept, then `events`."""
    new_game(live, events=[("mulligan", {"player": "p1", "count": 0}),
                           ("mulligan", {"player": "p2", "count": 0}), *events])


def settled(page) -> None:
    """No minion is still sliding in (their boxes are where they stay)."""
    expect(page.locator(".minion.entering")).to_have_count(0)


def box(page, testid: str) -> dict:
    found = tid(page, testid).bounding_box()
    assert found is not None, f"{testid} is not shown"
    return found


def overlaps(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def inside(a: dict, width: int, height: int) -> bool:
    return (a["x"] >= 0 and a["y"] >= 0 and a["x"] + a["width"] <= width
            and a["y"] + a["height"] <= height)


# --- 4: every minion in view above the action bar --------------------------------------------

@pytest.mark.parametrize("board", BOARDS)
def test_five_minions_a_side_are_all_in_view_above_the_action_bar(pages, live, board):
    """At 390×844 with the action bar open (the keypad, Play, the power, Attack, End turn),
    every minion of both sides is on the screen, clear of the bar and of the top bar,
    without scrolling."""
    heroes, events = BOARDS[board]
    new_game(live, *heroes, events=events)
    phone = pages.phone()
    expect(tid(phone, "btn-attack")).to_contain_text("can attack")  # the bar is whole
    settled(phone)
    assert phone.evaluate("window.scrollY") == 0
    bar, top = box(phone, "actions"), phone.locator(".topbar").bounding_box()
    state = live.get("/api/state").json()
    minions = [m["id"] for p in ("p1", "p2") for m in state["players"][p]["minions"]]
    assert len(minions) == 10
    for ident in minions:
        seen = box(phone, f"minion-{ident}")
        assert inside(seen, 390, 844), (ident, seen)
        assert not overlaps(seen, bar), (ident, seen, bar)
        assert not overlaps(seen, top), (ident, seen, top)
    png = shot(phone, f"newcomer-board-{board}")
    if board == "valeera-thrall" and os.environ.get("HEARTHTOP_DOCS_SHOTS"):
        write_docs_png(png, DOCS / "phone_board_full.png", width=390)


# --- 5: a toast leaves the top hero in view and says all it has to say ------------------------

def test_a_toast_leaves_the_top_hero_in_view_and_shows_its_whole_text(pages, live):
    """An illegal play's toast (a 9♠ with 1 mana): it covers neither the top hero's name nor
    his health, and its text wraps whole, the mana it names included."""
    newcomer(live)
    phone = pages.phone()
    expect(tid(phone, "btn-play")).to_contain_text("1 mana")
    live.event("play", player="p1", card="9S")
    toast = tid(phone, "toast")
    message = "Jaina played 9♠ (4 mana) with 1 mana available"
    expect(toast).to_contain_text(message)
    phone.wait_for_function(  # its slide in has ended: its box is where it stays
        "() => document.querySelector('[data-testid=toast]').getAnimations().length === 0")
    told = box(phone, "toast")
    for covered in ("name-p2", "health-p2", "active"):
        assert not overlaps(told, box(phone, covered)), (covered, told)
    assert inside(told, 390, 844), told
    clipped = toast.evaluate("""el => [el, ...el.querySelectorAll('*')].filter(
        e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
        .map(e => e.outerHTML)""")
    assert clipped == [], clipped
    shot(phone, "newcomer-toast")


# --- 6: names wrap at spaces, whole, on the phone, the watch page and the overlay ---------------

NAMES_BOARD = [  # Thrall's two long-named totems against Rexxar's Aspect of the Pack
    ("mulligan", {"player": "p1", "count": 0}), ("mulligan", {"player": "p2", "count": 0}),
    ("end_turn", {}), ("play", {"player": "p2", "card": "JK"}),
    ("play", {"player": "p2", "card": "7S"}), ("end_turn", {}),
    ("hero_power", {"player": "p1", "revealed": ["5H"]}), ("end_turn", {}),
    ("play", {"player": "p2", "card": "2S"}), ("end_turn", {}),
    ("hero_power", {"player": "p1", "revealed": ["5D"]}), ("end_turn", {}),
]
LONG_NAMES = {"5H": "Stoneclaw Totem", "5D": "Wrath of Air Totem", "7S": "Aspect of the Pack",
              "2S": "Aspect of the Pack"}

# Each word of a minion's name: on how many lines it lies, and whether it lies inside the
# name's box (not cut off at its right or below its last line).
WORDS = """el => {
  const box = el.getBoundingClientRect();
  const text = el.textContent;
  const words = [];
  for (const match of text.matchAll(/\\S+/g)) {
    const range = document.createRange();
    const node = el.firstChild;
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    words.push({word: match[0], lines: new Set(rects.map((r) => Math.round(r.top))).size,
      // (a glyph's box may stand out of a tight line: its middle is the line's)
      inside: rects.every((r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5
        && (r.top + r.bottom) / 2 > box.top && (r.top + r.bottom) / 2 < box.bottom)});
  }
  return {text, words, fits: el.scrollWidth <= el.clientWidth
    && el.scrollHeight <= el.clientHeight + 1};
}"""


def names_whole(page, where: str) -> None:
    settled(page)
    for ident, name in LONG_NAMES.items():
        minion = tid(page, f"minion-{ident}")
        expect(minion).to_contain_text(name)
        said = minion.locator(".m-name").evaluate(WORDS)
        assert said["text"] == name, (where, said)
        assert said["fits"], (where, ident, said)
        for word in said["words"]:
            assert word["lines"] == 1 and word["inside"], (where, ident, word)


def test_long_card_names_wrap_at_spaces_and_show_whole_on_every_page(pages, live):
    """Stoneclaw Totem, Wrath of Air Totem and Aspect of the Pack: on the phone and the
    spectator page (a phone's width and a laptop's) each word of a name stays on one line,
    inside the minion; on the overlay the whole name shows (two lines, no ellipsis)."""
    new_game(live, "thrall", "rexxar", NAMES_BOARD)
    phone = pages.phone()
    names_whole(phone, "phone")
    shot(phone, "newcomer-names-phone")
    watch = pages.open("/watch")
    names_whole(watch, "watch on a phone")
    wide = pages.open("/watch", viewport={"width": 1280, "height": 800})
    names_whole(wide, "watch on a laptop")
    overlay = pages.open("/overlay", **OVERLAY)
    names_whole(overlay, "overlay")
    shot(overlay, "newcomer-names-overlay", omit_background=True)


# --- 13b: an undo is no heal -----------------------------------------------------------------

# Every "−3" or "+2" that rises from a hero's health on the page, in order, from now on.
WATCH_DELTAS = """() => {
  window.__deltas = [];
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.classList?.contains('delta')) window.__deltas.push(node.textContent);
      }
    }
  }).observe(document.body, {subtree: true, childList: true});
}"""


def test_an_undo_animates_no_heal(pages, live):
    """Rexxar's Steady Shot takes 2 from Jaina (a "−2" rises from her health); undone on the
    phone, her health is 20 again with no "+2" and no green pulse: only a new event
    animates."""
    newcomer(live, [("end_turn", {}), ("end_turn", {}), ("end_turn", {})])
    phone = pages.phone()
    expect(tid(phone, "btn-power")).to_contain_text("2 mana")
    phone.evaluate(WATCH_DELTAS)
    live.event("hero_power", player="p2")
    health = tid(phone, "health-p1")
    expect(health).to_have_text("18")
    assert phone.evaluate("window.__deltas") == ["−2"]
    tid(phone, "btn-undo").click()
    expect(tid(phone, "confirm")).to_contain_text("Steady Shot")
    tid(phone, "confirm-yes").click()
    expect(health).to_have_text("20")
    expect(phone.locator("body[data-events='6']")).to_have_count(1)
    assert phone.evaluate("window.__deltas") == ["−2"]  # nothing rose for the undo
    expect(health).not_to_have_class(re.compile(r"\bup\b"))
    # the same shot again is a new event: it animates
    live.event("hero_power", player="p2")
    expect(health).to_have_text("18")
    assert phone.evaluate("window.__deltas") == ["−2", "−2"]


# --- 7: a refusal says which rule ---------------------------------------------------------------

def test_a_refused_target_and_an_asleep_minion_say_why(pages, live):
    """Rexxar lays 4♣ on turn 8 and taps it: the toast says it is asleep, played this turn,
    and points to no Attack button (none may attack). On Jaina's turn her Fireblast at the
    stealthy 4♣ asks first, naming Stealth, the rule the server gives."""
    newcomer(live, [("end_turn", {})] * 7 + [("play", {"player": "p2", "card": "4C"})])
    phone = pages.phone()
    expect(tid(phone, "btn-attack")).to_contain_text("none ready")
    tid(phone, "minion-4C").click()
    told = tid(phone, "toast")
    expect(told).to_have_text("4♣ is asleep: it was played this turn.")
    expect(told).not_to_contain_text("Attack")
    tid(phone, "btn-end-turn").click()
    expect(tid(phone, "active")).to_have_text("Jaina to play")
    expect(tid(phone, "btn-power")).to_contain_text("2 mana")
    tid(phone, "btn-power").click()
    expect(tid(phone, "mode-title")).to_contain_text("Fireblast")
    expect(tid(phone, "minion-4C")).to_have_class(re.compile(r"target-no"))
    tid(phone, "minion-4C").click()
    expect(tid(phone, "confirm")).to_contain_text("4♣ is in Stealth: Fireblast may not target it.")
    shot(phone, "newcomer-stealth-why")
    tid(phone, "confirm-no").click()
    tid(phone, "mode-cancel").click()
    assert live.get("/api/state").json()["events"] == 12  # nothing was recorded


# --- 1 and 8: a secret face down is for its player's eyes; its controls follow the state -------

def test_a_face_down_secret_is_named_only_when_set_off_or_shown_by_its_player(pages, live):
    """Jaina sets Vaporize (K♠) on turn 5. On Rexxar's turn the Secret button is there at
    once (no enemy minion yet: the rules allow no reveal). Rexxar lays 6♥, which sets off
    nothing, and taps Secret: the sheet names no card until "Show Jaina's secrets". On turn
    8 the 6♥ attacks Jaina, which sets Vaporize off: the sheet lists it at once, it is
    revealed, and its line in the history no longer says "hold to peek"."""
    newcomer(live, [("end_turn", {})] * 4)
    phone = pages.phone()
    expect(tid(phone, "btn-play")).to_contain_text("Jaina · 3 mana")
    tid(phone, "key-K").click()
    tid(phone, "suit-S").click()  # Vaporize, set face down
    newest = tid(phone, "recent").locator("li").first
    expect(newest).to_contain_text("Jaina sets a secret")
    expect(newest.locator(".peek-hint")).to_have_text("hold to peek")
    tid(phone, "btn-end-turn").click()
    expect(tid(phone, "active")).to_have_text("Rexxar to play")
    # 8: the button is there while Jaina has a secret set, whatever may be revealed now
    expect(tid(phone, "btn-secret")).to_be_visible()
    assert [m for m in live.get("/api/moves", headers=auth(live)).json()["moves"]
            if m["type"] == "secret_revealed"] == []

    # 1: a minion laid sets nothing off: the sheet names no secret until Jaina says so
    tid(phone, "key-6").click()
    tid(phone, "suit-H").click()
    expect(tid(phone, "minion-6H")).to_be_visible()
    wait_reveals(phone, live, due=False)
    tid(phone, "btn-secret").click()
    sheet = tid(phone, "sheet")
    expect(sheet).to_contain_text("Which secret did Jaina turn over?")
    expect(tid(phone, "secret-warning")).to_contain_text("Only Jaina should look")
    expect(tid(phone, "secret-show")).to_have_text("Show Jaina's secrets")
    for hidden in ("Vaporize", "K♠", "6♥"):
        expect(sheet).not_to_contain_text(hidden)
    shot(phone, "newcomer-secret-warning")
    tid(phone, "secret-show").click()
    expect(tid(phone, "secret-list")).to_contain_text("Vaporize")
    expect(tid(phone, "secret-0")).to_have_text(re.compile(r"K♠\s*Vaporize\s*at 6♥"))
    tid(phone, "secret-close").click()
    tid(phone, "btn-end-turn").click()
    expect(tid(phone, "active")).to_have_text("Jaina to play")
    tid(phone, "btn-end-turn").click()
    expect(tid(phone, "active")).to_have_text("Rexxar to play")

    # the 6♥ attacks Jaina: Vaporize goes off, so it is listed at once, with no warning
    expect(tid(phone, "btn-attack")).to_contain_text("can attack")
    tid(phone, "minion-6H").click()
    tid(phone, "hero-p1").click()
    expect(tid(phone, "health-p1")).to_have_text("19")
    wait_reveals(phone, live, due=True)
    tid(phone, "btn-secret").click()
    expect(tid(phone, "secret-0")).to_have_text(re.compile(r"K♠\s*Vaporize\s*at 6♥"))
    expect(tid(phone, "secret-warning")).to_have_count(0)
    expect(tid(phone, "secret-show")).to_have_count(0)
    shot(phone, "newcomer-secret-due")
    tid(phone, "secret-0").click()
    expect(newest).to_contain_text("Jaina reveals the secret K♠ (Vaporize) at 6♥")
    expect(tid(phone, "minion-6H")).to_have_count(0)
    # 8: no secret lies face down now: no hint on the line that set it, no Secret button
    expect(tid(phone, "recent").locator("li").filter(has_text="Jaina sets a secret")
           ).to_have_count(1)
    expect(tid(phone, "recent").locator(".peek-hint")).to_have_count(0)
    expect(tid(phone, "btn-secret")).to_have_count(0)


def auth(live) -> dict:
    return {"Authorization": f"Bearer {live.token}"}


def wait_reveals(phone, live, *, due: bool) -> None:
    """The phone has the server's moves for the position now (body data-moves: the events
    they are for), and the server says the last event set Vaporize off, or not."""
    events = live.get("/api/state").json()["events"]
    expect(phone.locator(f"body[data-moves='{events}']")).to_have_count(1)
    moves = live.get("/api/moves", headers=auth(live)).json()
    assert moves.get("secrets_due") is due, moves


# --- 13a: the overlay asks for the secrets only when the server shows them -----------------------

# Every address the page fetches, recorded as it asks (before any answer).
RECORD_FETCHES = """(() => {
  window.__asked = [];
  const fetch = window.fetch.bind(window);
  window.fetch = (what, ...rest) => {
    window.__asked.push(String(what));
    return fetch(what, ...rest);
  };
})()"""


def open_overlay(browser, live):
    """The overlay in its own context: its console, every line, from the first."""
    context = browser.new_context(**OVERLAY)
    page = context.new_page()
    said = []
    page.on("console", lambda message: said.append((message.type, message.text)))
    page.on("pageerror", lambda error: said.append(("pageerror", str(error))))
    page.add_init_script(RECORD_FETCHES)
    page.goto(live.url + "/overlay")
    return context, page, said


def test_the_overlay_asks_for_secrets_only_when_the_server_shows_them(browser, live, tmp_path):
    """Without `run --overlay-secrets` the overlay never asks /api/overlay/secrets (no 404
    in its console), though a secret lies face down; with it, Jaina's Vaporize is listed face
    up under her column."""
    from live_server import ThreadServer

    setting = [("end_turn", {})] * 4 + [("play", {"player": "p1", "card": "KS"})]
    newcomer(live, setting)
    context, overlay, said = open_overlay(browser, live)
    try:
        expect(tid(overlay, "secrets-p1")).to_have_text("1")  # the state is drawn
        expect(tid(overlay, "face-up-p1")).to_be_hidden()
        asked = overlay.evaluate("window.__asked")
        assert not [a for a in asked if "/api/overlay/secrets" in a], asked
        assert not [line for line in said if line[0] in ("error", "pageerror")], said
    finally:
        context.close()
    with ThreadServer(tmp_path / "delayed", overlay_secrets=True) as delayed:
        newcomer(delayed, setting)
        context, stream, said = open_overlay(browser, delayed)
        try:
            expect(tid(stream, "face-up-p1")).to_contain_text("K♠ Vaporize")
            expect(tid(stream, "face-up-p2")).to_be_hidden()
            assert not [line for line in said if line[0] in ("error", "pageerror")], said
        finally:
            context.close()


# --- 14: the screen stays on while a game is on ---------------------------------------------------

def test_the_phone_keeps_its_screen_on_while_a_game_is_on(pages, live):
    """Chromium grants the page a screen wake lock once a game is on (body data-wake-lock
    is what navigator.wakeLock.request answered: "on"; a browser that refuses says
    "refused", one without the API "unsupported"). "Keep the screen on" in the menu lets it
    go, remembered on this phone across a reload, and takes it again; a game over lets it
    go. (The lock asked again when the page is shown again is not checked here: headless
    Chromium never hides a page.)"""
    phone = pages.phone()
    expect(tid(phone, "setup")).to_be_visible()
    expect(phone.locator("body[data-wake-lock=off]")).to_have_count(1)  # no game: no lock
    newcomer(live)
    expect(phone.locator("body[data-wake-lock=on]")).to_have_count(1)
    assert phone.evaluate("document.body.dataset.wakeLockAsked") == "1"
    tid(phone, "btn-menu").click()
    switch = tid(phone, "toggle-awake")
    expect(tid(phone, "toggle-awake-row")).to_contain_text("Keep the screen on")
    expect(switch).to_be_checked()
    shot(phone, "newcomer-menu-awake")
    switch.uncheck()
    expect(phone.locator("body[data-wake-lock=off]")).to_have_count(1)
    assert phone.evaluate("localStorage.getItem('hearthtop.keepAwake')") == "off"
    phone.reload()
    expect(tid(phone, "btn-play")).to_be_visible()
    expect(phone.locator("body[data-wake-lock=off]")).to_have_count(1)
    assert phone.evaluate("document.body.dataset.wakeLockAsked") is None  # never asked
    tid(phone, "btn-menu").click()
    expect(tid(phone, "toggle-awake")).not_to_be_checked()
    tid(phone, "toggle-awake").check()
    expect(phone.locator("body[data-wake-lock=on]")).to_have_count(1)
    tid(phone, "menu-close").click()
    live.event("concede", player="p2")
    expect(tid(phone, "result")).to_have_text("Jaina wins")
    expect(phone.locator("body[data-wake-lock=off]")).to_have_count(1)


# --- 13c: the demo's history begins with the deal and the mulligans -----------------------------

def test_the_demos_history_begins_with_the_mulligans(browser, tmp_path):
    """`run --demo`: the phone's history opens with the new game, Valeera's and Thrall's
    mulligans (the phone's inputs, which no camera sees) and then the end of Valeera's turn
    1, tagged T1: no "turn 0"."""
    from live_server import ProcessServer

    server = ProcessServer(tmp_path / "data", "--demo", "--demo-pace", "4")
    live = server.start()
    watchers = Pages(browser, live)
    try:
        phone = watchers.phone(token=False)
        recent = tid(phone, "recent")
        expect(recent).to_contain_text("turn ends", timeout=60_000)  # frame 397: 7 s at pace 4
        lines = [line.strip() for line in recent.locator("li").all_inner_texts()][::-1]
        assert lines[:4] == ["New game: Valeera Sanguinar goes first, Thrall second",
                             "Valeera mulligans 2 cards", "Thrall mulligans 3 cards",
                             "T1turn ends"], lines
        expect(recent.locator(".recent-turn").filter(has_text="T0")).to_have_count(0)
        shot(phone, "newcomer-demo-history")
    finally:
        watchers.close()
        output = server.stop()
    assert not watchers.errors, watchers.errors
    assert "Traceback" not in output


# --- the camera setup page, found from the menu before any camera is known --------------------

def test_the_menu_always_leads_to_the_camera_setup_page(pages, live):
    """A newcomer with no camera yet (or one whose first picture is still being read) finds
    Camera setup in the menu, and the page says how to connect a camera; the item no longer
    waits for a camera condition in a menu opened later."""
    phone = pages.phone()
    expect(tid(phone, "setup")).to_be_visible()  # no game yet: the new-game form
    tid(phone, "btn-menu").click()
    expect(tid(phone, "menu-setup")).to_be_visible()
    tid(phone, "menu-setup").click()
    expect(phone.locator("#error")).to_have_text(re.compile(
        r"^No camera is connected: start the server with `run --source 0`"))
    expect(phone.locator("#ready")).to_be_hidden()
    shot(phone, "newcomer-setup-without-camera")
