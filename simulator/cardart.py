"""Real card art from Debian's card-deck packages, rendered once and cached as PNG.

Two packages ship one SVG a design, with an element per card:
`gnome-cards-data` (/usr/share/aisleriot/cards/*.svgz, ids `club_1`, `heart_king`,
`joker_red`, `back`) and `kdegames-card-data-kf5` (/usr/share/carddecks/svg-*/, ids
`1_club`, `king_heart`, `back`). Each card is drawn with `rsvg-convert --export-id` (librsvg
2.54 draws just the element's extents, older ones the whole canvas: either way the result
is cropped to the card's opaque body), given an opaque face, and cached under
`$HEARTHTOP_CACHE/cards/<design>/<id>.png` (default `~/.cache/hearthtop/cards/...`),
outside the repository: the 40 designs are ~2200 PNGs, ~65 MB, drawn in 4-6 minutes on
two cores (`python -m simulator.cardart`); a card is ~0.1-0.3 s of rsvg-convert, most of it
parsing the design's SVG, so a scene's missing cards can also be drawn on first use.
The packages are looked for under /usr/share, or under `$HEARTHTOP_CARD_DECKS` (a folder
holding `aisleriot/cards/` and `carddecks/`) where that is set.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from cards import BACK, DECK, JOKER

# Rendered card height in pixels. A card fills ~70-150 px of a 720p-1080p table view, so
# 360 px leaves headroom for close-ups while a design stays ~1.5 MB on disk.
CARD_HEIGHT_PX = 360
# Bumped whenever rendering changes, so a stale cache is re-extracted rather than mixed.
_CACHE_VERSION = 2

_DECKS_DIR = Path(os.environ.get("HEARTHTOP_CARD_DECKS") or "/usr/share")
_GNOME_DIR = _DECKS_DIR / "aisleriot" / "cards"
_KDE_DIR = _DECKS_DIR / "carddecks"
# The Debian packages of the card art and its renderer (in packages.txt)
PACKAGES = ("gnome-cards-data", "kdegames-card-data-kf5", "librsvg2-bin")


@dataclass(frozen=True)
class Design:
    """One deck design. `family` groups designs that share card art (the same pips,
    indices or courts): hold designs out of training by family, or a "held-out" design
    is one the model has already seen under another name. `courts` is the index letters
    printed for J Q K (a Russian deck prints В Д К); `note` says what is unusual."""

    name: str
    path: Path
    scheme: str  # "gnome" (club_1, heart_king) or "kde" (1_club, king_heart)
    family: str
    courts: str = "JQK"
    note: str = ""


def _g(stem: str, family: str, courts: str = "JQK", note: str = "", name: str = "") -> Design:
    return Design(name or stem, _GNOME_DIR / f"{stem}.svgz", "gnome", family, courts, note)


def _k(folder: str, svg: str, family: str, courts: str = "JQK", note: str = "") -> Design:
    return Design(f"kde-{folder}", _KDE_DIR / f"svg-{folder}" / svg, "kde", family, courts, note)


# The designs a Hearthtop player could bring: French suits, pips 2-10 and rank + suit
# corner indices. Chosen by rendering every design and looking at it (see EXCLUDED).
# Families were measured, not guessed: designs whose pip cards, corner indices or court
# drawings correlate >= 0.85 (grey, 48x72 px) share a family (paris, bellot and
# ancient_french have the same court drawings; guyenne-classic has the paris pips; berlin,
# lattmann, rheinland, tarocco and orell the same pips; anglo_modern the atlasnye ones).
_KEPT: tuple[Design, ...] = (
    _g("anglo", "anglo"),
    _g("anglo_bitmap", "anglo", note="anglo with bitmap courts"),
    _g("gnomangelo", "anglo", note="anglo faces, GNOME joker and back"),
    _g("gnomangelo_bitmap", "anglo", note="anglo bitmap faces, GNOME back"),
    _g("anglo_modern", "atlasnye", note="the atlasnye pips and indices"),
    _g("anglo_modern_4_color", "atlasnye", note="four-colour suits"),
    _g("atlasnye", "atlasnye"),
    _g("atlasnye_skat", "atlasnye", "BDK", "four-colour suits, German indices"),
    _g("Атласные", "atlasnye", "ВДК", "Russian indices: Т for the ace, В Д К",
       name="atlasnye_ru"),
    _g("anglo_poker", "anglo_poker"),
    _g("paris", "paris"),
    _g("ancient_french", "paris", "VDR", "French indices: 1 for the ace, V D R"),
    _g("bellot", "paris", note="the paris courts recoloured"),
    _g("guyenne-classic", "paris", note="the paris pips, guyenne courts"),
    _k("gm-paris", "paris.svgz", "paris"),
    _g("berlin", "berlin", "BDK", "German indices"),
    _g("lattmann", "berlin", "BDK", "German indices"),
    _g("rheinland", "berlin", "BDK", "German indices"),
    _g("tarocco", "berlin", "FDR", "Italian indices F D R"),
    _g("orell", "berlin"),
    _g("dondorf", "dondorf", note="indices in all four corners"),
    _k("dondorf", "dondorf.svgz", "dondorf"),
    _g("neoclassical", "neoclassical"),
    _g("neoclassical_4_color", "neoclassical", note="four-colour suits"),
    _g("ornamental", "ornamental", note="cream faces"),
    _k("nicu-ornamental", "ornamental.svgz", "ornamental", note="cream faces"),
    _k("nicu-white", "white.svgz", "ornamental"),
    _g("tigullio", "tigullio"),
    _k("tigullio-international", "tigullio-international.svgz", "tigullio",
       note="glossy grey shading"),
    _g("plastic", "plastic"),
    _g("simplistic", "simplistic", note="big letters instead of court pictures"),
    _g("slavic_costumes", "slavic", "ВДК", "Russian indices: Т for the ace, В Д К"),
    _g("tango", "tango", note="pale grey gradient faces"),
    _g("tango_nuevo", "tango_nuevo", note="one big suit sign instead of pips"),
    _k("ancient-egyptians", "Ancient_Egyptians.svgz", "ancient_egyptians", note="cream faces"),
    _k("jolly-royal", "jolly-royal.svgz", "jolly_royal", note="big letters instead of courts"),
    _k("oxygen-air", "oxygen-air.svgz", "oxygen", note="grey faces, rank at top right only"),
    _k("oxygen-white", "oxygen-white.svgz", "oxygen", note="rank at top right only"),
    _k("penguins", "penguins.svgz", "penguins", note="Tux courts"),
    _k("standard", "standard.svgz", "kde_standard"),
)

# Installed designs left out, and why.
EXCLUDED: dict[str, str] = {
    "swiss-xvii": "Swiss-German suits (acorns, bells, roses, shields): not a French deck",
    "kde-xskat-german": "German suits (hearts, bells, leaves, acorns): not a French deck",
    "kde-oxygen": "dark grey and red glossy faces: a screen design, no printed deck looks like"
    " it (its light siblings kde-oxygen-air and kde-oxygen-white are kept)",
    "kde-future": "a joke deck of circuit-board 'cards' with binary digits, no suit signs",
    "kde-konqi-modern": "each card is a 72x96 px embedded bitmap: far too coarse for a 360 px"
    " card (rsvg-convert cannot --export-id an <image> element either)",
    "kde-xskat-french": "each card is a 72x112 px embedded bitmap, as kde-konqi-modern",
}


@cache
def _svg_ids(path: Path) -> frozenset[str]:
    with gzip.open(path) as f:
        data = f.read()
    return frozenset(m.decode("utf-8", "replace") for m in re.findall(rb'\bid="([^"]+)"', data))


def _face_element(scheme: str, card: str) -> str:
    rank, suit = card[:-1], card[-1]
    rank_name = {"J": "jack", "Q": "queen", "K": "king", "A": "1"}.get(rank, rank)
    suit_name = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}[suit]
    return f"{suit_name}_{rank_name}" if scheme == "gnome" else f"{rank_name}_{suit_name}"


# Joker and back elements differ between designs; the first of each list that a design
# has is its main one, the others are kept as variants (a scene uses one back throughout).
_JOKER_IDS = {"gnome": ("joker_red", "joker_black"), "kde": ("red_joker", "joker", "black_joker")}
_BACK_IDS = {"gnome": ("back", "back_alternative"),
             "kde": ("back", "back_c1", "back_c2", "back_c3", "back_c4")}


@cache
def card_elements(design: str) -> dict[str, tuple[str, ...]]:
    """Our card id -> the design's element ids (variants; the first is the main one).
    A design without a joker or a back has no entry for it."""
    d = get_design(design)
    ids = _svg_ids(d.path)
    out: dict[str, tuple[str, ...]] = {}
    for card in DECK:
        el = _face_element(d.scheme, card)
        if el in ids:
            out[card] = (el,)
    for key, candidates in ((JOKER, _JOKER_IDS[d.scheme]), (BACK, _BACK_IDS[d.scheme])):
        found = tuple(c for c in candidates if c in ids)
        if found:
            out[key] = found
    return out


def all_designs() -> list[Design]:
    """Every kept design, installed or not."""
    return list(_KEPT)


def get_design(name: str) -> Design:
    for d in _KEPT:
        if d.name == name:
            return d
    raise KeyError(f"unknown card design {name!r}")


def list_designs() -> list[str]:
    """Names of the kept designs that are installed and have all 52 faces."""
    return [d.name for d in _KEPT if d.path.exists() and _has_all_faces(d.name)]


def _has_all_faces(name: str) -> bool:
    return all(c in card_elements(name) for c in DECK)


def cache_root() -> Path:
    """Card image cache: $HEARTHTOP_CACHE/cards, default ~/.cache/hearthtop/cards."""
    base = os.environ.get("HEARTHTOP_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "hearthtop"
    return root / "cards"


def missing_art(designs: Iterable[str]) -> str | None:
    """Why the cards of `designs` (installed ones) cannot be drawn, in a sentence naming the
    Debian packages to install; None when they can (drawn already, or rsvg-convert is
    there to draw them)."""
    packages = " ".join(PACKAGES)
    designs = list(designs)
    if not designs:
        return (f"no card art in {_GNOME_DIR} or {_KDE_DIR}, where Debian's card decks go; "
                f"install them and their renderer with apt-get install {packages}")
    if shutil.which("rsvg-convert") is None and not all(map(_drawn, designs)):
        return ("rsvg-convert, which draws the card art, is not installed; install it and "
                f"the card decks with apt-get install {packages}")
    return None


def _drawn(design: str) -> bool:
    """Every card of the design is in the cache, drawn by this renderer."""
    return _meta_ok(cache_root() / design) and all(
        card_path(design, card, v).exists()
        for card, elements in card_elements(design).items() for v in range(len(elements)))


def _variant_name(card: str, variant: int) -> str:
    return card if variant == 0 else f"{card}-{variant}"


def card_path(design: str, card: str, variant: int = 0) -> Path:
    return cache_root() / design / f"{_variant_name(card, variant)}.png"


def variants(design: str, card: str) -> int:
    """How many images the design has for this card (jokers and backs may have several)."""
    return len(card_elements(design).get(card, ()))


def _rsvg(path: Path, element: str, zoom: float, out: Path) -> np.ndarray:
    cmd = ["rsvg-convert", f"--export-id={element}", f"--zoom={zoom:.5f}", "-o", str(out),
           str(path)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError(f"rsvg-convert gave no RGBA image for {path.name}#{element}")
    return img


def _card_body(img: np.ndarray) -> np.ndarray:
    """The card itself without drop shadows or glows (several designs draw a soft shadow of
    alpha <= 130 outside the card): the largest near-opaque region, holes filled, cropped to
    its box, alpha cleared outside it; the face is made opaque (white where the art left it
    transparent) while the anti-aliased rounded outline keeps its soft alpha, because a
    camera sees paper inside a card, never the table."""
    a = img[:, :, 3]
    contours, _ = cv2.findContours((a >= 200).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        raise RuntimeError("no opaque card body")
    body = np.zeros(a.shape, np.uint8)
    cv2.drawContours(body, [max(contours, key=cv2.contourArea)], -1, 1, thickness=cv2.FILLED)
    x, y, w, h = cv2.boundingRect(body)
    img, body = img[y : y + h, x : x + w].copy(), body[y : y + h, x : x + w]
    img[cv2.dilate(body, np.ones((3, 3), np.uint8)) == 0, 3] = 0
    inside = cv2.erode(body, np.ones((3, 3), np.uint8)).astype(bool)
    af = img[:, :, 3:].astype(np.float32) / 255.0
    over_white = img[:, :, :3].astype(np.float32) * af + 255.0 * (1.0 - af)
    img[inside, :3] = np.clip(over_white[inside] + 0.5, 0, 255).astype(np.uint8)
    img[inside, 3] = 255
    return img


def render_card(design: str, card: str, variant: int = 0, height: int = CARD_HEIGHT_PX,
                workdir: Path | None = None) -> np.ndarray:
    """Draw one card with rsvg-convert: BGRA, `height` px tall, opaque face, soft alpha
    outside its rounded outline. Not cached; see `load_card`."""
    d = get_design(design)
    element = card_elements(design)[card][variant]
    tmp = Path(tempfile.mkdtemp(dir=workdir))
    try:
        out = tmp / "card.png"
        zoom = _zoom(design, tmp)
        img = _card_body(_rsvg(d.path, element, zoom, out))
        if abs(img.shape[0] / height - 1) > 0.15:  # an odd element size: draw it again
            zoom *= height / img.shape[0]
            img = _card_body(_rsvg(d.path, element, zoom, out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    width = max(1, round(img.shape[1] * height / img.shape[0]))
    interp = cv2.INTER_AREA if img.shape[0] > height else cv2.INTER_CUBIC
    img = cv2.resize(img, (width, height), interpolation=interp)
    return img


_ZOOMS: dict[str, float] = {}


def _zoom(design: str, tmp: Path) -> float:
    """rsvg zoom that makes this design's cards CARD_HEIGHT_PX tall (from its 10 of hearts)."""
    if design not in _ZOOMS:
        d = get_design(design)
        ref = _card_body(_rsvg(d.path, card_elements(design)["10H"][0], 1.0, tmp / "z.png"))
        _ZOOMS[design] = CARD_HEIGHT_PX / ref.shape[0]
    return _ZOOMS[design]


def _meta_ok(folder: Path) -> bool:
    try:
        meta = json.loads((folder / "meta.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("version") == _CACHE_VERSION and meta.get("height") == CARD_HEIGHT_PX


def _write_meta(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"version": _CACHE_VERSION, "height": CARD_HEIGHT_PX}
    (folder / "meta.json").write_text(json.dumps(meta))


def _jobs(designs: Iterable[str]) -> list[tuple[str, str, int]]:
    jobs = []
    for name in designs:
        folder = cache_root() / name
        if not _meta_ok(folder):
            shutil.rmtree(folder, ignore_errors=True)
            _write_meta(folder)
        for card, elements in card_elements(name).items():
            for v in range(len(elements)):
                if not card_path(name, card, v).exists():
                    jobs.append((name, card, v))
    return jobs


def _extract_one(job: tuple[str, str, int]) -> None:
    name, card, v = job
    img = render_card(name, card, v)
    path = card_path(name, card, v)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.png")
    cv2.imwrite(str(tmp), img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    tmp.replace(path)  # atomic: a killed run never leaves a half-written card


def extract(designs: Iterable[str] | None = None, workers: int = 2,
            progress: bool = True) -> float:
    """Render every card of `designs` (default: all installed) that is not cached yet, on
    `workers` processes' worth of rsvg-convert. Returns the seconds it took."""
    names = list(designs) if designs is not None else list_designs()
    jobs = _jobs(names)
    t0 = time.perf_counter()
    for name in names:  # the per-design zoom, once, before the threads share it
        if any(j[0] == name for j in jobs):
            with tempfile.TemporaryDirectory() as tmp:
                _zoom(name, Path(tmp))
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for i, _ in enumerate(pool.map(_extract_one, jobs), 1):
            if progress and (i == len(jobs) or i % 10 == 0):
                dt = time.perf_counter() - t0
                print(f"\rcard art: {i}/{len(jobs)} cards rendered, {dt:.0f} s",
                      end="", file=sys.stderr, flush=True)
    if progress and jobs:
        print(file=sys.stderr)
    return time.perf_counter() - t0


# Decoded cards kept in memory, least recently used dropped first: ~400 cards (~110 MB)
# covers the few designs a training worker is busy with, not the whole catalogue.
_LOADED: OrderedDict[tuple[str, str, int], np.ndarray] = OrderedDict()
_LOADED_MAX = 400
_CHECKED: set[Path] = set()  # cache folders whose meta.json matches this renderer


def load_card(design: str, card: str, variant: int = 0) -> np.ndarray:
    """A card image, BGRA uint8 (opaque face, soft alpha at the rounded corners), rendered
    and cached on first use. `card` is a card id (`cards`: one of DECK, JOKER) or BACK."""
    key = (design, card, variant)
    img = _LOADED.get(key)
    if img is not None:
        _LOADED.move_to_end(key)
    else:
        path = card_path(design, card, variant)
        if path.parent not in _CHECKED:  # cards drawn by an older renderer are redrawn
            if not _meta_ok(path.parent):
                shutil.rmtree(path.parent, ignore_errors=True)
                _write_meta(path.parent)
            _CHECKED.add(path.parent)
        if not path.exists():
            if card not in card_elements(design):
                raise KeyError(f"design {design!r} has no {card}")
            _extract_one(key)
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise RuntimeError(f"unreadable cached card {path}")
        _LOADED[key] = img
        if len(_LOADED) > _LOADED_MAX:
            _LOADED.popitem(last=False)
    return img


def forget_loaded() -> None:
    """Drop the decoded cards kept in memory."""
    _LOADED.clear()
    _CHECKED.clear()


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Render and cache the Debian card art.")
    parser.add_argument("designs", nargs="*", help="design names (default: all)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="list the designs and exit")
    args = parser.parse_args()
    if args.list:
        for d in all_designs():
            ok = "installed" if d.name in list_designs() else "missing"
            print(f"{d.name:24} {d.family:18} {d.courts} {ok}  {d.note}")
        return
    seconds = extract(args.designs or None, workers=args.workers)
    print(f"done in {seconds:.1f} s; cache at {cache_root()}")


if __name__ == "__main__":
    main()
