"""Random but plausible Hearthtop tables, reproducible from a seed.

Two players face each other across the long side: p1 near (large y), p2 far, each with a
hero card, armor markers beside it, maybe a weapon with durability markers tucked under
it sideways, a row of up to 5 minions (damage markers sideways under them, buff markers
upright, summoned minions as stacks of face-down cards), secrets; one shared draw deck
and discard pile at an end of the table; cards held near the table edge; hands reaching
in. One card design a scene, as a real table has one deck; which designs are allowed
(training or held out) is the caller's choice.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from cards import BACK, DECK, JOKER
from simulator import cardart
from simulator.backs import procedural_back
from simulator.camera import Camera, fit_distance, project
from simulator.hands import SKIN_TONES, Hand
from simulator.photometric import Glare, Photometric
from simulator.scene import Decal, PlacedCard, Scene, card_size_mm
from simulator.textures import Background

_MINION_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")
_SPELL_RANKS = ("J", "Q", "K", "A")
PATTERN_TABLES = 0.4  # share of the scenes with a deck of its own back that lie on a pattern

_WOODS = (  # light, dark (BGR)
    ((120, 165, 205), (45, 80, 125)),  # oak
    ((85, 115, 150), (25, 40, 65)),  # walnut
    ((95, 130, 195), (35, 55, 110)),  # cherry
    ((165, 172, 178), (95, 100, 108)),  # grey-washed
    ((150, 200, 230), (80, 135, 185)),  # pine
    ((60, 75, 95), (18, 24, 32)),  # dark stained
)


class _Deck:
    """The physical cards: every card on the table is a different one."""

    def __init__(self, rng: np.random.Generator, design: str) -> None:
        cards = list(DECK)
        if JOKER in cardart.card_elements(design):
            cards.append(JOKER)
        self.cards = [cards[i] for i in rng.permutation(len(cards))]

    def take(self, ranks: Sequence[str] | None = None) -> str:
        for i, c in enumerate(self.cards):
            if ranks is None or c[:-1] in ranks:
                return self.cards.pop(i)
        return self.cards.pop() if self.cards else DECK[0]


class _Table:
    """Collects cards for one side; p2's side is p1's turned 180 degrees about the
    table's centre."""

    def __init__(self, size: tuple[float, float]) -> None:
        self.size = size
        self.cards: list[PlacedCard] = []
        self.z = 0.0

    def put(self, side: int, card: str, x: float, y: float, rot: float, face_up: bool,
            role: str, rng: np.random.Generator, z: float | None = None) -> None:
        w, h = self.size
        if side == 2:
            x, y, rot = w - x, h - y, rot + 180.0
        if z is None:
            self.z += 1.0
            z = self.z
        shade = float(rng.uniform(0.93, 1.04))
        self.cards.append(PlacedCard(card, (x, y), rot, face_up, z, role, shade))


def _hsv_colour(h: float, s: float, v: float) -> tuple[int, int, int]:
    px = np.uint8([[[int(h) % 180, int(s * 255), int(v * 255)]]])
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def surface(rng: np.random.Generator, photos: Sequence[str]) -> tuple[Background, Background]:
    """(table, surround). A play mat on a table, a bare table top, or a cloth."""
    seed = int(rng.integers(2**31))
    kinds = ["wood", "fabric", "solid", "gradient"] + (["photo"] if photos else [])
    p = np.array([0.42, 0.32, 0.14, 0.06] + ([0.06] if photos else []))
    kind = str(rng.choice(kinds, p=p / p.sum()))
    wood = _WOODS[rng.integers(len(_WOODS))]
    jitter = rng.uniform(0.85, 1.15, 3)
    wood_c = tuple(tuple(int(np.clip(c * j, 0, 255)) for c, j in zip(col, jitter, strict=True))
                   for col in wood)
    if kind == "wood":
        table = Background("wood", wood_c, seed, float(rng.uniform(3, 14)),
                           planks_along_y=bool(rng.random() < 0.3),
                           contrast=float(rng.uniform(0.6, 1.4)))
    elif kind == "fabric":
        colour = _hsv_colour(rng.uniform(0, 180), rng.uniform(0.2, 0.85), rng.uniform(0.15, 0.6))
        table = Background("fabric", (colour,), seed, float(rng.uniform(4, 14)),
                           contrast=float(rng.uniform(0.5, 1.5)))
    elif kind == "solid":
        colour = _hsv_colour(rng.uniform(0, 180), rng.uniform(0, 0.7), rng.uniform(0.2, 0.9))
        table = Background("solid", (colour,), seed)
    elif kind == "gradient":
        c1 = _hsv_colour(rng.uniform(0, 180), rng.uniform(0, 0.6), rng.uniform(0.25, 0.8))
        c2 = tuple(int(c * rng.uniform(0.6, 1.0)) for c in c1)
        table = Background("gradient", (c1, c2), seed, angle=float(rng.uniform(0, 360)))
    else:
        table = Background("photo", ((128, 128, 128),), seed,
                           photo=str(photos[rng.integers(len(photos))]))
    r = rng.random()
    if kind == "wood" and r < 0.5:
        surround = table  # the table top simply goes on
    elif kind in ("fabric", "solid", "gradient") and r < 0.55:
        surround = Background("wood", wood_c, seed + 1, float(rng.uniform(3, 14)))
    else:
        dark = _hsv_colour(rng.uniform(0, 180), rng.uniform(0, 0.5), rng.uniform(0.05, 0.35))
        surround = Background(str(rng.choice(["solid", "fabric"])), (dark,), seed + 2, 10.0)
    return table, surround


def _camera(rng: np.random.Generator, size: tuple[int, int],
            table_size: tuple[float, float]) -> Camera:
    w, h = table_size
    r = rng.random()
    # mostly from a player's end; now and then from the table's side or a corner
    yaw = 0.0 if r < 0.6 else 180.0 if r < 0.88 else float(rng.choice([90.0, -90.0])) \
        if r < 0.93 else float(rng.uniform(-180, 180))
    yaw += float(rng.normal(0, 4))
    cam = Camera(size=size,
                 target=(w / 2 + float(rng.normal(0, 0.04 * w)),
                         h / 2 + float(rng.normal(0, 0.04 * h))),
                 tilt=float(np.clip(abs(rng.normal(12, 10)), 0, 38)),
                 yaw=yaw, roll=float(rng.normal(0, 1.5)), hfov=float(rng.uniform(58, 82)))
    cam.distance = fit_distance(cam, table_size, margin=float(rng.uniform(0.01, 0.06)))
    cam.distance *= float(rng.uniform(1.0, 1.1))
    return cam


def _photometric(rng: np.random.Generator, cam: Camera,
                 cards: Sequence[PlacedCard]) -> Photometric:
    w, h = cam.size
    k = w / 1280
    temp = rng.uniform(-1, 1)
    wb = (1 - 0.14 * temp, 1 + rng.normal(0, 0.03), 1 + 0.14 * temp)
    p = Photometric(
        exposure=float(rng.uniform(0.8, 1.35)),
        gradient=float(rng.uniform(0, 0.5)), gradient_angle=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0, 0.45)),
        white_balance=tuple(float(v) for v in wb),
        blur_sigma=float(rng.uniform(0, 1.3) * k) if rng.random() < 0.75 else 0.0,
        gamma=float(rng.uniform(0.85, 1.2)), saturation=float(rng.uniform(0.75, 1.2)),
        noise=float(rng.uniform(1, 7)), noise_seed=int(rng.integers(2**31)),
        sharpen=float(rng.uniform(0, 0.8)) if rng.random() < 0.5 else 0.0,
        jpeg_quality=int(rng.integers(35, 96)) if rng.random() < 0.8 else None)
    if rng.random() < 0.4:
        p.lamp = (float(rng.uniform(0, w)), float(rng.uniform(0, h)),
                  float(rng.uniform(0.2, 0.6) * w), float(rng.uniform(0.1, 0.5)))
    if rng.random() < 0.15:
        p.motion = (float(rng.uniform(2, 9) * k), float(rng.uniform(0, 180)))
    if rng.random() < 0.45:
        hom = cam.homography()
        for _ in range(int(rng.integers(1, 4))):
            if cards and rng.random() < 0.6:  # glossy cards catch the lamp
                c = cards[rng.integers(len(cards))].center
                x, y = project(hom, np.array([c]))[0] + rng.normal(0, 15 * k, 2)
            else:
                x, y = rng.uniform(0, w), rng.uniform(0, h)
            p.glare.append(Glare((float(x), float(y)),
                                 (float(rng.uniform(12, 70) * k), float(rng.uniform(8, 40) * k)),
                                 float(rng.uniform(0, 180)), float(rng.uniform(0.3, 0.85))))
    return p


def hero_card(rng: np.random.Generator, name: str | None = None) -> np.ndarray:
    """A hero reference card: not one of the 54 classes, a look-alike to tell apart. With
    `name`, that hero's card in a frame of a set depth (a simulated game's); without, any
    hero's in any frame (a scene's)."""
    img = np.full((352, 252, 3), _hsv_colour(rng.uniform(10, 30), 0.25, 0.9), np.uint8)
    hue = rng.uniform(0, 180)
    frame = _hsv_colour(hue, 0.7, 0.5) if name else \
        _hsv_colour(hue, rng.uniform(0.4, 0.9), rng.uniform(0.3, 0.7))
    cv2.rectangle(img, (0, 0), (251, 351), frame, 14)
    cv2.ellipse(img, (126, 130), (80, 95), 0, 0, 360,
                _hsv_colour(rng.uniform(0, 180), 0.5, 0.6), -1, cv2.LINE_AA)
    cv2.ellipse(img, (126, 115), (35, 42), 0, 0, 360, (150, 175, 215), -1, cv2.LINE_AA)
    label = name.upper()[:9] if name else str(rng.choice(
        ["JAINA", "THRALL", "UTHER", "REXXAR", "GARROSH", "VALEERA", "ANDUIN", "GULDAN",
         "MALFURION"]))
    cv2.putText(img, label, (22, 262), cv2.FONT_HERSHEY_DUPLEX, 0.9, (30, 30, 30), 2,
                cv2.LINE_AA)
    for i in range(4):
        cv2.line(img, (24, 290 + 12 * i), (int(rng.uniform(120, 228)), 290 + 12 * i),
                 (90, 90, 90), 3)
    cv2.circle(img, (220, 34), 22, (40, 40, 200), -1, cv2.LINE_AA)
    cv2.putText(img, "20", (204, 42), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
    return img


def clutter(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float], str]:
    """A phone, a coin or a notepad: things that lie on real game tables."""
    r = rng.random()
    if r < 0.4:
        img = np.zeros((290, 140, 4), np.uint8)
        cv2.rectangle(img, (4, 4), (135, 285), (25, 25, 28, 255), -1, cv2.LINE_AA)
        cv2.rectangle(img, (10, 14), (129, 272), (60, 50, 40, 255), -1)
        img[14:273, 10:130, :3] = np.linspace(40, 90, 259)[:, None, None].astype(np.uint8)
        return img, (70.0, 145.0), "phone"
    if r < 0.75:
        img = np.zeros((64, 64, 4), np.uint8)
        metal = _hsv_colour(rng.uniform(10, 25), rng.uniform(0.2, 0.7), rng.uniform(0.5, 0.8))
        cv2.circle(img, (32, 32), 30, (*metal, 255), -1, cv2.LINE_AA)
        cv2.circle(img, (32, 32), 22, (*(int(c * 0.8) for c in metal), 255), 2, cv2.LINE_AA)
        d = float(rng.uniform(18, 27))
        return img, (d, d), "coin"
    img = np.full((300, 210, 4), 255, np.uint8)
    for y in range(40, 300, 14):
        cv2.line(img, (0, y), (209, y), (200, 170, 150, 255), 1)
    return img, (105.0, 150.0), "notepad"


def _fan(t: _Table, rng: np.random.Generator, deck: _Deck, side: int, x: float, y: float,
         n: int, role: str, face_up: bool, base_rot: float, step: tuple[float, float],
         jitter: float = 2.0, z0: float | None = None) -> None:
    """n cards stacked with a small offset each (a fan of markers, a deck, a token)."""
    for i in range(n):
        z = None if z0 is None else z0 + 0.01 * i
        t.put(side, deck.take(), x + step[0] * i + rng.normal(0, 0.3),
              y + step[1] * i + rng.normal(0, 0.3), base_rot + rng.normal(0, jitter), face_up,
              role, rng, z)


def _side(t: _Table, rng: np.random.Generator, deck: _Deck, side: int,
          card: tuple[float, float], decals: list[Decal]) -> None:
    """One player's half, laid out as p1 (near side); `_Table.put` turns it for p2."""
    w, h = t.size
    cw, ch = card
    sloppy = float(rng.uniform(1.0, 5.0))  # how neatly this player lays cards down
    # hero card (a decal) with armor and secrets beside it, and maybe a weapon
    hx = w / 2 + rng.normal(0, 40)
    hy = h - ch / 2 - rng.uniform(12, 30)
    hx_t, hy_t = (hx, hy) if side == 1 else (w - hx, h - hy)
    decals.append(Decal(hero_card(rng), (hx_t, hy_t), (cw, ch),
                        float(rng.normal(0, 3)) + (0 if side == 1 else 180), z=-0.5,
                        role="hero"))
    armor = int(rng.choice(6, p=[0.45, 0.15, 0.15, 0.1, 0.08, 0.07]))
    if armor:
        ax = hx + cw + rng.uniform(8, 25)
        _fan(t, rng, deck, side, ax, hy + rng.normal(0, 5), armor, "armor", False,
             float(rng.choice([0.0, 90.0], p=[0.7, 0.3])) + rng.normal(0, sloppy),
             (rng.uniform(3, 12), rng.uniform(-3, 3)), sloppy)
    if rng.random() < 0.25:  # secrets: face down next to the hero
        sx = hx - cw - rng.uniform(10, 30) - (cw + 20 if rng.random() < 0.5 else 0)
        for i in range(int(rng.integers(1, 3))):
            t.put(side, deck.take(), sx - i * (cw + 6), hy + rng.normal(0, 4),
                  float(rng.normal(0, sloppy)), False, "secret", rng)
    if rng.random() < 0.3:  # weapon with durability markers sideways under it
        wx = hx - cw - rng.uniform(15, 40)
        wy = hy - rng.uniform(0, 15)
        durability = int(rng.integers(1, 4))
        t.z += 1
        for i in range(durability):
            t.put(side, deck.take(), wx + rng.normal(0, 3), wy - 8 + i * rng.uniform(5, 11),
                  90 + rng.normal(0, sloppy), False, "durability", rng, t.z + 0.01 * i)
        t.put(side, deck.take(_SPELL_RANKS), wx, wy, float(rng.normal(0, sloppy)), True,
              "weapon", rng, t.z + 0.5)
        t.z += 1
    # the minion row
    n = int(rng.choice(6, p=[0.1, 0.18, 0.22, 0.2, 0.17, 0.13]))
    gap = cw + rng.uniform(10, 35)
    row_y = h / 2 + rng.uniform(50, 85)
    x0 = w / 2 - gap * (n - 1) / 2 + rng.normal(0, 20)
    buff_dir = float(rng.choice([-1.0, 1.0]))
    for i in range(n):
        mx = x0 + i * gap + rng.normal(0, 3)
        my = row_y + rng.normal(0, 4)
        if rng.random() < 0.12:  # in the attack zone
            my -= rng.uniform(40, 70)
        t.z += 1
        zb = t.z
        if rng.random() < 0.15:  # a summoned minion: a stack of face-down cards
            _fan(t, rng, deck, side, mx, my, int(rng.integers(1, 6)), "token", False,
                 float(rng.normal(0, sloppy)), (rng.uniform(-2, 2), rng.uniform(-3, 1)),
                 sloppy, z0=zb)
            t.z += 1
            continue
        damage = int(rng.choice(5, p=[0.55, 0.2, 0.13, 0.08, 0.04]))
        for k in range(damage):
            t.put(side, deck.take(), mx + rng.normal(0, 3),
                  my - 10 + k * rng.uniform(6, 12) * float(rng.choice([-1, 1])),
                  90 + rng.normal(0, sloppy), False, "damage", rng, zb + 0.01 * k)
        buffs = int(rng.choice(3, p=[0.8, 0.14, 0.06]))
        for k in range(buffs):
            t.put(side, deck.take(), mx + rng.normal(0, 3),
                  my + buff_dir * (14 + 9 * k) + rng.normal(0, 2), float(rng.normal(0, sloppy)),
                  False, "buff", rng, zb + 0.1 + 0.01 * k)
        if rng.random() < 0.06:  # a spell marking its buff with itself, face up
            t.put(side, deck.take(_SPELL_RANKS), mx + rng.normal(0, 3),
                  my + buff_dir * rng.uniform(18, 30), float(rng.normal(0, sloppy)), True,
                  "spell_buff", rng, zb + 0.2)
        t.put(side, deck.take(_MINION_RANKS), mx, my, float(rng.normal(0, sloppy)), True,
              "minion", rng, zb + 0.5)
        t.z += 1


def _held(t: _Table, rng: np.random.Generator, deck: _Deck, side: int,
          card: tuple[float, float], hands: list[Hand], skin: tuple[int, int, int],
          sleeve: tuple[int, int, int] | None) -> None:
    """A player's hand of cards held low over the table edge: the camera sees the backs."""
    w, h = t.size
    ch = card[1]
    n = int(rng.integers(2, 8))
    px = w / 2 + rng.uniform(-0.35, 0.35) * w
    py = h + rng.uniform(-10, 40)  # the pivot, near or past the edge
    spread = rng.uniform(6, 14)
    t.z = max(t.z, 1000.0)
    for i in range(n):
        a = (i - (n - 1) / 2) * spread + rng.normal(0, 1.5)
        r = np.deg2rad(a)
        # cards turn about a pivot near their bottom
        cx = px + np.sin(r) * ch * 0.4
        cy = py - np.cos(r) * ch * 0.4
        t.put(side, deck.take(), cx, cy, a, False, "held", rng)
    tip = np.array([px + rng.normal(0, 10), py - rng.uniform(0, 20)])
    entry = np.array([px + rng.uniform(-150, 150), h + 420])
    if side == 2:
        tip, entry = np.array([w, h]) - tip, np.array([w, h]) - entry
    hands.append(Hand(tuple(entry), tuple(tip), skin, float(rng.uniform(75, 95)),
                      float(rng.uniform(0, 0.6)), int(rng.choice([-1, 1])), sleeve,
                      float(rng.uniform(40, 220))))


def random_scene(rng: np.random.Generator, *, designs: Sequence[str] | None = None,
                 image_size: tuple[int, int] = (1280, 720),
                 table_size: tuple[float, float] = (900.0, 600.0),
                 photos: Sequence[str] = (), hand_chance: float = 0.45,
                 own_backs: float = 0.0) -> Scene:
    """A varied, realistic Hearthtop table drawn from `rng`: the same generator state gives
    the same scene. `designs` limits the card art (default: every installed design);
    `photos` are optional background photographs; `own_backs`: the share of decks with a
    back of no design (`simulator.backs`), as a group's own deck may have; a share
    `PATTERN_TABLES` of those lie on a cloth printed with another such pattern, so that a
    detector learns a card by its outline and not by a pattern it has not seen before."""
    pool = list(designs) if designs else cardart.list_designs()
    design = str(pool[rng.integers(len(pool))])
    card = card_size_mm(design)
    deck = _Deck(rng, design)
    t = _Table(table_size)
    decals: list[Decal] = []
    hands: list[Hand] = []
    w, h = table_size

    for side in (1, 2):
        _side(t, rng, deck, side, card, decals)

    # the shared draw deck and discard pile at one end of the table
    end = float(rng.choice([1.0, -1.0]))
    dx = w / 2 + end * (w / 2 - card[0] / 2 - rng.uniform(15, 45))
    dy = h / 2 + rng.normal(0, 30)
    deck_rot = float(rng.choice([0.0, 90.0], p=[0.75, 0.25])) + rng.normal(0, 3)
    t.z += 1
    _fan(t, rng, deck, 1, dx, dy - card[1] * 0.6, int(rng.integers(3, 9)), "deck", False,
         deck_rot, (rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8)), 1.5, z0=t.z)
    t.z += 1
    _fan(t, rng, deck, 1, dx + rng.normal(0, 5), dy + card[1] * 0.6, int(rng.integers(1, 6)),
         "discard", True, float(rng.normal(0, 8)), (rng.normal(0, 3), rng.normal(0, 3)), 10,
         z0=t.z)
    t.z += 1

    skins = [SKIN_TONES[rng.integers(len(SKIN_TONES))] for _ in range(2)]
    sleeves = [_hsv_colour(rng.uniform(0, 180), rng.uniform(0, 0.8), rng.uniform(0.1, 0.8))
               if rng.random() < 0.6 else None for _ in range(2)]
    for side in (1, 2):
        if rng.random() < 0.35:
            _held(t, rng, deck, side, card, hands, skins[side - 1], sleeves[side - 1])

    if rng.random() < hand_chance:  # someone reaches in: placing a card, pointing, moving
        side = int(rng.integers(1, 3))
        tip = np.array([rng.uniform(0.15, 0.85) * w, rng.uniform(0.2, 0.8) * h])
        entry = np.array([tip[0] + rng.uniform(-250, 250), h + 450.0 if side == 1 else -450.0])
        if rng.random() < 0.4:  # holding a card by its edge
            t.z = max(t.z, 2000.0)
            t.put(1, deck.take(), float(tip[0]), float(tip[1] - (card[1] / 2 if side == 1 else
                                                                    -card[1] / 2)),
                  float(rng.normal(0, 15)), bool(rng.random() < 0.6), "in_hand", rng)
        hands.append(Hand(tuple(entry), tuple(tip), skins[side - 1],
                          float(rng.uniform(75, 95)), float(rng.uniform(0, 1)),
                          int(rng.choice([-1, 1])), sleeves[side - 1],
                          float(rng.uniform(40, 220))))

    for _ in range(int(rng.choice(3, p=[0.6, 0.3, 0.1]))):
        img, size, role = clutter(rng)
        corner = rng.integers(4)
        cx = (0.06 if corner % 2 == 0 else 0.94) * w + rng.normal(0, 15)
        cy = (0.1 if corner < 2 else 0.9) * h + rng.normal(0, 15)
        decals.append(Decal(img, (float(cx), float(cy)), size, float(rng.uniform(0, 360)),
                            z=-0.4, role=role))

    table, surround = surface(rng, photos)
    cam = _camera(rng, image_size, table_size)
    photometric = _photometric(rng, cam, t.cards)
    back_variant = int(rng.integers(max(1, cardart.variants(design, BACK))))
    # drawn last and only when asked for, so that other scenes stay as they were
    own = procedural_back(rng) if own_backs and rng.random() < own_backs else None
    if own is not None and rng.random() < PATTERN_TABLES:
        table = Background("pattern", seed=int(rng.integers(2**31)),
                           feature_mm=float(rng.uniform(20, 90)))
    return Scene(design=design, cards=t.cards, decals=decals, hands=hands,
                 table_size=table_size, table=table, surround=surround, camera=cam,
                 photometric=photometric, back_variant=back_variant, back=own)


def deck_scene(rng: np.random.Generator, design: str, *, image_size: tuple[int, int] = (1920, 1080),
               backs: int = 2, columns: int = 11, back_variant: int = 0,
               ) -> tuple[Scene, list[str]]:
    """The photo a group takes to register its deck (`vision.register`): every card of a standard
    deck face up, then `backs` face down, laid in rows of `columns` a little apart, either
    way up, seen from above by a webcam in some light; and the cards in reading order (the
    joker where the design has one). `back_variant`: which of the design's backs the deck
    has."""
    jokers = [JOKER] if cardart.variants(design, JOKER) else []
    cards = [*DECK, *jokers] + [BACK] * backs
    card = card_size_mm(design)
    gap = 25.0
    rows = -(-len(cards) // columns)
    table = (columns * (card[0] + gap) + 60.0, rows * (card[1] + gap) + 60.0)
    placed = []
    for i, name in enumerate(cards):
        row, col = divmod(i, columns)
        x = 30.0 + (col + 0.5) * (card[0] + gap) + rng.normal(0, 2)
        y = 30.0 + (row + 0.5) * (card[1] + gap) + rng.normal(0, 2)
        rotation = float(rng.choice([0.0, 180.0]) + rng.normal(0, 2))
        placed.append(PlacedCard(name, (x, y), rotation, name != BACK, float(i), "deck",
                                 float(rng.uniform(0.95, 1.03))))
    cam = Camera(size=image_size, target=(table[0] / 2, table[1] / 2),
                 tilt=float(abs(rng.normal(0, 6))), yaw=float(rng.normal(0, 2)),
                 roll=float(rng.normal(0, 1)), hfov=float(rng.uniform(60, 75)))
    cam.distance = fit_distance(cam, table, margin=0.03)
    surface_, surround = surface(rng, ())
    scene = Scene(design=design, cards=placed, table_size=table, table=surface_,
                  surround=surround, camera=cam, photometric=_photometric(rng, cam, placed),
                  back_variant=back_variant)
    return scene, cards
