"""How an expression moves the procedural head: action units (``motion.Expression``) to shapes.

The mouth's shape rides on the speech opening, the brows' edges and the eyelids follow
the expression's action units; ``painting`` draws what these return.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from empathygraph.generators.avatar.motion import Expression
from empathygraph.generators.avatar.procedural.geometry import Look, MouthShape


def mouth_shape(look: Look, e: Expression, speech_open: float) -> MouthShape:
    """Combine the expression's mouth with the speech opening (the jaw rides on the expression)."""
    pos = max(0.0, e.smile)
    narrow = 0.4 * max(0.0, -e.mouth_width) * (1 + max(0.0, e.jaw))
    width = look.mouth_half * (1 + 0.16 * pos + 0.22 * max(0.0, e.mouth_width) - narrow - 0.06 * speech_open)
    lift = 12.0 * e.smile + 3.0 * max(0.0, e.cheek_raise)
    press = float(np.clip(e.lip_press, 0.0, 1.0))
    # Pressed or stretched (tense) lips and a sad, mumbling mouth open less for speech.
    speech_gain = 17.0 * (1.0 - 0.35 * press - 0.45 * min(1.0, max(0.0, e.mouth_width)) - 0.15 * max(0.0, -e.smile))
    rest = 34.0 * max(0.0, e.jaw) + 10.0 * max(0.0, e.lips_part)
    gap = rest + max(0.0, speech_open) ** 0.7 * speech_gain  # lips part quickly, then the jaw follows
    lip_raise = 7.0 * max(0.0, e.lip_raise)
    stretch = max(0.0, e.mouth_width)
    gap_up = (0.22 - 0.1 * min(1.0, stretch)) * gap + 1.5 * max(0.0, e.lips_part)
    gap_down = gap - gap_up + 1.5 * max(0.0, e.lips_part)
    roundness = float(np.clip(0.75 - 0.6 * stretch - 0.25 * pos + 0.3 * max(0.0, e.jaw), 0.2, 1.0))
    thin = 1.0 - 0.6 * press
    upper_lip = look.lips[0] * thin * (1 - 0.25 * max(0.0, e.mouth_width)) * (1 - 0.3 * max(0.0, e.lip_raise))
    lower_lip = look.lips[1] * thin * (1 + 0.15 * max(0.0, e.chin_raise) - 0.2 * max(0.0, e.mouth_width))
    # Teeth show in the opening but never fill it: the dark gap still grows with the jaw.
    teeth_up = min(7.0 + lip_raise + 2.0 * pos, (0.2 + 0.5 * pos + 0.15 * max(0.0, e.lips_part)) * gap + lip_raise)
    teeth_up *= 1 - 0.8 * min(1.0, stretch)  # a stretched (fearful) mouth bares the lower teeth instead
    lower_show = 6.0 * stretch + 4.0 * press + 3.0 * max(0.0, e.lip_raise)
    teeth_down = min(lower_show, 0.3 * gap) if lower_show > 1.5 else 0.0
    return MouthShape(width, lift, gap_up, gap_down, roundness, upper_lip, lower_lip, teeth_up, teeth_down, lip_raise)


def brow_points(look: Look, e: Expression, side: int) -> tuple[np.ndarray, np.ndarray]:
    """A brow's upper and lower edge, inner end first (local coordinates)."""
    ex, ey = look.eye_gap, look.eye_y
    ew = look.eye_size[0]
    knit = max(0.0, -e.brow_inner) + max(0.0, e.brow_knit)
    lowered = max(0.0, -e.brow_inner)
    inner_up = max(0.0, e.brow_inner)
    u = np.linspace(0, 1, 12)  # 0: inner end, 1: tail
    inner_x = ex - ew * 0.95 - 7 * knit
    outer_x = ex + ew * 1.15
    x = inner_x + (outer_x - inner_x) * u
    base = ey - look.brow_gap
    # A gentle arch at rest; AU1 (inner raise) tilts it up towards the middle, AU4 pulls the
    # inner ends down into a V, AU1+2 lifts the whole brow.
    arch = 6.0 * np.sin(np.pi * np.clip(u * 0.85 + 0.1, 0, 1)) * max(0.0, 1 - 0.6 * inner_up - 0.8 * lowered)
    raise_ = 12.0 * e.brow_raise if e.brow_raise > 0 else 9.0 * e.brow_raise
    tilt = 13.0 * inner_up * (1 - u) ** 1.5 - 14.0 * lowered * (1 - u) + 3.0 * lowered * u
    y = base - arch - raise_ - tilt
    thick = look.brow_weight * (1.15 + 0.25 * lowered - (0.75 + 0.25 * lowered) * u**1.5)
    upper = np.stack([side * x, y - thick * 0.55], 1)
    lower = np.stack([side * x, y + thick * 0.45], 1)
    return upper, lower


@dataclass(frozen=True)
class Lids:
    """How open the eyes are: the upper lid's opening, the lower lid's height and the eye's slant."""

    opening: float
    lower: float
    slant: float


def eyelids(e: Expression, blink: float) -> Lids:
    """The eyelids for an expression, closed by ``blink`` (0: open, 1: shut)."""
    opening = float(np.clip(1 + 0.55 * e.eye_open - 0.2 * max(0.0, e.lid_tighten) - 0.15 * max(0.0, -e.brow_raise), 0.35, 1.7))
    opening *= 1.0 - 0.97 * blink
    lower = float(np.clip(0.75 - 0.4 * max(0.0, e.cheek_raise) - 0.3 * max(0.0, e.lid_tighten) + 0.15 * max(0.0, e.eye_open), 0.25, 1.0))
    slant = 0.35 * e.brow_inner - 0.15 * max(0.0, e.lid_tighten) * (e.brow_inner < 0)
    return Lids(opening, lower, slant)
