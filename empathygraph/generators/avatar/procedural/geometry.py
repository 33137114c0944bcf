"""The procedural head's geometry: its proportions and colours by profile, and the outlines of its parts.

Coordinates are "head coordinates": pixels of a 512-pixel frame, origin at the head's
centre, y down. How an expression moves these parts is in ``expression``; how they are
painted, in ``painting``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from empathygraph.schemas import AgeGroup, AvatarProfile, Gender


@dataclass(frozen=True)
class Look:
    """Proportions and colours of a head, in pixels of a 512-pixel frame (origin: head centre)."""

    face: tuple[float, float]  # half width, half height of the face
    chin: float  # how much the lower face narrows (0: an ellipse)
    eye_size: tuple[float, float]  # half width, half height of an open eye
    eye_gap: float  # eye centre's distance from the midline
    eye_y: float
    brow_gap: float  # brow's height above the eye centre
    brow_weight: float  # brow thickness
    nose_y: float  # nostrils' height
    nose_width: float
    mouth_y: float
    mouth_half: float
    lips: tuple[float, float]  # upper, lower lip thickness
    skin: tuple[int, int, int]
    lip: tuple[int, int, int]
    hair: tuple[int, int, int]
    iris: tuple[int, int, int]
    long_hair: bool
    wrinkles: float  # age lines, 0..1
    lashes: bool
    shirt: tuple[int, int, int]


def look_for(profile: AvatarProfile) -> Look:
    """Return the head's proportions and colours for an avatar profile."""
    child = profile.age is AgeGroup.CHILD
    female = profile.gender is Gender.FEMALE
    hair = {
        AgeGroup.CHILD: (92, 62, 40),
        AgeGroup.YOUNG: (70, 46, 32),
        AgeGroup.MIDDLE_AGED: (96, 82, 72),
        AgeGroup.ELDERLY: (196, 196, 200),
    }[profile.age]
    wrinkles = {AgeGroup.CHILD: 0.0, AgeGroup.YOUNG: 0.0, AgeGroup.MIDDLE_AGED: 0.4, AgeGroup.ELDERLY: 1.0}[profile.age]
    if child:
        return Look(
            face=(116.0, 128.0), chin=0.10, eye_size=(25.0, 9.5), eye_gap=50.0, eye_y=-4.0, brow_gap=32.0,
            brow_weight=7.0, nose_y=36.0, nose_width=14.0, mouth_y=68.0, mouth_half=28.0, lips=(6.0, 8.0),
            skin=(240, 204, 176), lip=(206, 112, 112), hair=hair, iris=(70, 110, 150) if female else (96, 70, 46),
            long_hair=female, wrinkles=0.0, lashes=female, shirt=(180, 90, 110) if female else (70, 100, 150),
        )  # fmt: skip
    return Look(
        face=(110.0, 148.0) if female else (116.0, 152.0), chin=0.3 if female else 0.24,
        eye_size=(24.0, 7.5) if female else (23.0, 7.0), eye_gap=52.0, eye_y=-10.0,
        brow_gap=28.0 if female else 24.0, brow_weight=7.0 if female else 10.0,
        nose_y=44.0 if female else 47.0, nose_width=16.0 if female else 18.0,
        mouth_y=80.0 if female else 84.0, mouth_half=40.0 if female else 42.0,
        lips=(8.0, 11.0) if female else (6.5, 9.0),
        skin=(236, 196, 164), lip=(198, 100, 104) if female else (184, 110, 104),
        hair=hair, iris=(70, 110, 150) if female else (96, 70, 46), long_hair=female, wrinkles=wrinkles,
        lashes=female, shirt=(180, 90, 110) if female else (70, 100, 150),
    )  # fmt: skip


@dataclass(frozen=True)
class MouthShape:
    """The lips of one frame in head coordinates: corners, opening and teeth."""

    half_width: float
    corner_lift: float  # corners above (+) or below (-) the lip centre line
    gap_up: float  # the upper lip's inner edge above the centre line
    gap_down: float  # the lower lip's inner edge below it
    roundness: float  # opening shape: small = a stretched slot, ~0.8 = an oval
    upper_lip: float
    lower_lip: float
    upper_teeth: float  # how far the upper teeth reach down from the upper lip
    lower_teeth: float
    snarl: float = 0.0  # upper-lip raise (AU10): lifts the upper lip in a flat arch over the teeth


def head_centre(profile: AvatarProfile) -> np.ndarray:
    """Where the head's centre sits in a 512-pixel frame (a child's head sits lower)."""
    return np.array([256.0, 236.0 if profile.age is not AgeGroup.CHILD else 250.0])


def face_outline(look: Look) -> np.ndarray:
    """The face's outline (local coordinates): an egg, narrowing towards the chin."""
    fw, fh = look.face
    t = np.linspace(0, 2 * np.pi, 120, endpoint=False)
    y = -fh * np.cos(t)
    lower = np.clip(y / fh, 0, 1)
    x = fw * np.sin(t) * (1 - look.chin * lower**3)
    return np.stack([x, y], axis=1)
