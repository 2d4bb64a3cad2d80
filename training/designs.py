"""Which card designs train, calibrate and test, by whole families.

A family shares its card art under several names, so a design held out by name alone is one
the model has seen. The confidence thresholds are set on the calibration families and the
figures are on the held-out ones: designs no model has seen, as a user's own deck is.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from simulator.cardart import get_design, list_designs

HELD_OUT_FAMILIES = ("paris", "tigullio", "penguins", "simplistic")  # the test
CALIBRATION_FAMILIES = ("neoclassical", "plastic", "jolly_royal")  # temperature, threshold


def split_designs(announce: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Designs for training, for calibration and for the test, by whole families: the
    confidence threshold is set on designs the model has never seen, as a user's deck is."""
    designs = list_designs()
    held = [d for d in designs if get_design(d).family in HELD_OUT_FAMILIES]
    calibration = [d for d in designs if get_design(d).family in CALIBRATION_FAMILIES]
    train = [d for d in designs if d not in held and d not in calibration]
    if announce:
        print(f"designs: {len(train)} for training, {len(calibration)} for calibration, "
              f"{len(held)} held out ({', '.join(held)})", file=sys.stderr)
    return train, calibration, held


def held_out_designs(without: Sequence[str] = ()) -> list[str]:
    """The held-out designs less `without` (what one design costs a benchmark); a name that
    is not held out is a ValueError saying which are."""
    held = split_designs()[2]
    unknown = set(without) - set(held)
    if unknown:
        raise ValueError(f"not a held-out design: {', '.join(sorted(unknown))} "
                         f"(held out: {', '.join(held)})")
    return [d for d in held if d not in without]
