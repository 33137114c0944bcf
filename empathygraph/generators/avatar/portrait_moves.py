"""The movements a portrait can make, as moves of its control points (pixels): the rig's blendshapes.

Expressions come from ``expression_sheet`` (a packaged person's own, or the people's
mean for any other face), turned from face units into this photo's pixels. The speech
and idle movements are geometric: the jaw drops the lower lip, chin and jaw line;
rounding draws the mouth corners in, spreading pulls them out; a blink brings each upper
lid down onto the lower one; the gaze moves the point inside each eye.
"""

from __future__ import annotations

import numpy as np

from empathygraph.generators.avatar.expression_sheet import movements
from empathygraph.generators.avatar.face_points import (
    CHIN,
    INNER_LIP_LOWER,
    INNER_LIP_UPPER,
    LOWER_LIDS,
    MOUTH_CORNERS,
    OUTER_LIP_LOWER,
    OUTER_LIP_UPPER,
    UPPER_LIDS,
)
from empathygraph.generators.avatar.warp import Rig
from empathygraph.schemas import CoarseEmotion

SPEECH_MOVES = ("jaw", "round", "spread", "blink_left", "blink_right", "gaze_x", "gaze_y")
_JAW_OPEN = 0.30  # widest lip gap, as a share of the mouth's width
_GAZE_TRAVEL = 0.16  # how far the eye's content shifts at full gaze, as a share of the eye's width
_UPPER_FACE = (0.15, 0.35)  # face-unit heights (below the eyes' midpoint) where the upper face hands over to the lower


def expression_moves(rig: Rig, person_id: str | None) -> dict[CoarseEmotion, np.ndarray]:
    """Each emotion's control-point moves (pixels) on this portrait."""
    out = {}
    for emotion, move in movements(person_id).items():
        mesh = rig.frame.vectors_from_face(move.astype(np.float64))
        eyes = np.array([mesh[list(u) + list(lo)].mean(0) for u, lo in zip(UPPER_LIDS, LOWER_LIDS)])
        out[emotion] = rig.pad(mesh, eyes)
    return out


def split_face(rig: Rig, moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``moves`` (all control points) as an upper-face part (brows, lids) and a lower-face part that add up to it.

    The hand-over is a linear ramp between the lower lids and the nose tip, so scaling the
    two parts differently never tears the cheek.
    """
    heights = rig.frame.to_face(rig.controls)[:, 1]
    top, bottom = _UPPER_FACE
    upper = np.clip((bottom - heights) / (bottom - top), 0.0, 1.0)[:, None]
    return moves * upper, moves * (1.0 - upper)


def speech_moves(rig: Rig) -> dict[str, np.ndarray]:
    """The jaw, lip shape, blink and gaze moves (pixels) on this portrait, by name (``SPEECH_MOVES``)."""
    p = rig.mesh
    left, right = p[MOUTH_CORNERS[0]], p[MOUTH_CORNERS[1]]
    width = float(np.linalg.norm(right - left))
    centre_x = (left[0] + right[0]) / 2
    mouth_y = float(p[list(INNER_LIP_UPPER) + list(INNER_LIP_LOWER), 1].mean())
    down = rig.frame.axes[1] / np.linalg.norm(rig.frame.axes[1])
    across = rig.frame.axes[0] / np.linalg.norm(rig.frame.axes[0])
    chin_depth = max(1.0, float(p[CHIN, 1] - mouth_y))

    # Jaw: everything under the mouth drops, most at the chin's middle, fading toward the ears. The
    # lips part most in the middle and close toward the corners, as a real mouth opens (a lens, not a slot).
    lower_lip = list(INNER_LIP_LOWER[1:-1]) + list(OUTER_LIP_LOWER[1:-1])
    upper_lip = list(INNER_LIP_UPPER[1:-1]) + list(OUTER_LIP_UPPER[1:-1])
    below = (p[:, 1] > mouth_y + 0.02 * width).astype(np.float64)
    below[lower_lip] = 1.0
    below[list(MOUTH_CORNERS)] = 0.1
    sideways = np.clip(1.0 - np.abs(p[:, 0] - centre_x) / (1.6 * width), 0.0, 1.0)
    depth = np.clip((p[:, 1] - mouth_y) / chin_depth, 0.0, 1.0)
    lens = np.sqrt(np.clip(1.0 - ((p[:, 0] - centre_x) / (0.5 * width)) ** 2, 0.0, 1.0))
    amount = below * sideways * (0.85 + 0.15 * depth) * _JAW_OPEN * width
    amount[lower_lip] *= 0.25 + 0.75 * lens[lower_lip]
    amount[upper_lip] = -0.08 * _JAW_OPEN * width * lens[upper_lip]
    jaw = amount[:, None] * down[None, :]

    # Lip shape: corners (and the lips near them) toward or away from the mouth's middle.
    lips = list(set(INNER_LIP_UPPER + INNER_LIP_LOWER + OUTER_LIP_UPPER + OUTER_LIP_LOWER))
    offset = np.zeros(len(p))
    offset[lips] = (p[lips, 0] - centre_x) / (width / 2)
    round_ = -0.14 * width * offset[:, None] * across[None, :]
    spread = 0.07 * width * offset[:, None] * across[None, :]

    moves = {"jaw": rig.pad(jaw), "round": rig.pad(round_), "spread": rig.pad(spread)}
    for side, (upper, lower) in zip(("left", "right"), zip(UPPER_LIDS, LOWER_LIDS)):
        blink = np.zeros_like(p)
        for u, lo in zip(upper[1:-1], lower[1:-1]):
            blink[u] = 0.92 * (p[lo] - p[u])
        eyes = np.zeros((2, 2))
        eyes[0 if side == "left" else 1] = 0.5 * blink[list(upper[1:-1])].mean(0)
        moves[f"blink_{side}"] = rig.pad(blink, eyes)
    eye_width = float(np.mean([np.ptp(p[list(u), 0]) for u in UPPER_LIDS]))
    moves["gaze_x"] = rig.pad(np.zeros_like(p), np.tile(_GAZE_TRAVEL * eye_width * across, (2, 1)))
    moves["gaze_y"] = rig.pad(np.zeros_like(p), np.tile(0.5 * _GAZE_TRAVEL * eye_width * down, (2, 1)))
    return moves
