"""Camera faults injected into a game video (`simulate --faults SPEC`); the game goes on.

SPEC is `random:K` (K faults of any kind at random moments) or a comma-separated list of
`KIND@SECONDS+DURATION` (`black@30+2,bump@61+0`). Kinds:

- `dropout`: no frames at all (the files are missing), as a camera that stopped sending;
- `freeze`: the last picture again and again, as a stalled driver;
- `black`: dark frames (a lens covered, exposure gone);
- `bump`: the camera knocked to a new pose, and staying there;
- `occlude`: a person leaning over the table, an arm across the view;
- `light`: the room's light switched (much darker or brighter) for a while;
- `resize`: frames of another size (the camera renegotiated its mode).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tracker.rules.events import LogError

KINDS = ("dropout", "freeze", "black", "bump", "occlude", "light", "resize")
_RANDOM_SECONDS = {"dropout": (0.5, 3.0), "freeze": (0.5, 3.0), "black": (0.3, 2.0),
                   "bump": (0.0, 0.0), "occlude": (1.0, 5.0), "light": (2.0, 10.0),
                   "resize": (1.0, 5.0)}


@dataclass
class Fault:
    kind: str
    start_s: float
    duration_s: float
    first: int = 0  # frames, set by `frames`
    last: int = 0
    strength: float = 1.0  # light: the gain; resize: the scale; occlude: the side

    def frames(self, fps: float) -> Fault:
        self.first = round(self.start_s * fps)
        self.last = max(self.first, round((self.start_s + self.duration_s) * fps) - 1)
        return self

    def covers(self, n: int) -> bool:
        return self.first <= n <= self.last

    def to_json(self) -> dict:
        return {"kind": self.kind, "start_s": round(self.start_s, 3),
                "duration_s": round(self.duration_s, 3), "first_frame": self.first,
                "last_frame": self.last, "strength": round(self.strength, 3)}


def parse_faults(spec: str | None, rng: np.random.Generator, fps: float,
                 seconds: float) -> list[Fault]:
    """The faults of a SPEC; random ones fall in a video of about `seconds`."""
    if not spec:
        return []
    if spec.startswith("random:"):
        try:
            count = int(spec[7:])
        except ValueError:
            count = -1
        if not 0 <= count <= 100:
            raise LogError(f"--faults {spec}: random:K takes a count from 0 to 100")
        faults = []
        span = max(10.0, seconds - 10.0)
        for start in sorted(rng.uniform(5.0, 5.0 + span, count)):
            kind = str(rng.choice(KINDS))
            lo, hi = _RANDOM_SECONDS[kind]
            faults.append(Fault(kind, float(start), float(rng.uniform(lo, hi))))
    else:
        faults = [_one(part.strip(), spec) for part in spec.split(",") if part.strip()]
    for fault in faults:
        fault.frames(fps)
        if fault.kind == "light":
            fault.strength = float(rng.choice([rng.uniform(0.35, 0.6), rng.uniform(1.5, 1.9)]))
        elif fault.kind == "resize":
            fault.strength = float(rng.choice([0.5, 0.75]))
        elif fault.kind == "occlude":
            fault.strength = float(rng.choice([-1.0, 1.0]))
    return faults


def _one(part: str, spec: str) -> Fault:
    kind, _, when = part.partition("@")
    start, _, duration = when.partition("+")
    if kind not in KINDS:
        raise LogError(f"--faults {spec}: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    try:
        start_s, duration_s = float(start), float(duration or 0)
    except ValueError:
        raise LogError(f"--faults {spec}: give KIND@SECONDS+DURATION, e.g. black@30+2") from None
    if start_s < 0 or duration_s < 0 or not np.isfinite(start_s + duration_s):
        raise LogError(f"--faults {spec}: seconds and durations are 0 or more")
    return Fault(kind, start_s, duration_s)
