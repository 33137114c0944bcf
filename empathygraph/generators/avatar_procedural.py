"""The default avatar: a procedural 2D talking head drawn with OpenCV, offline and fast.

The static parts (background, shoulders, the head with hair, ears and nose) are drawn
once; each frame only warps the head layer (nod, tilt, shake) and draws the moving
features on it: eyes (gaze, lids, blinks), brows and lips. The look follows the profile
(child: rounder face and larger eyes; elderly: grey hair and lines; long hair for women).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from empathygraph.generators.base import Speech
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.face_motion import Expression, FaceTrack, build_track
from empathygraph.generators.video import encode_mp4
from empathygraph.schemas import AgeGroup, AvatarDirectives, AvatarProfile, Gender

# The mouth's inside: a colour used nowhere else, so a frame's open-mouth area can be measured.
MOUTH_INSIDE = (72, 18, 30)
_SKIN = (236, 196, 164)
_SKIN_SHADE = (214, 168, 136)
_LIP = (188, 96, 96)
_EYE_WHITE = (250, 250, 248)
_LINE = (90, 60, 50)


@dataclass(frozen=True)
class Look:
    """Proportions and colours of a head, in pixels of a 512-pixel frame."""

    face: tuple[int, int]
    eye_size: tuple[float, float]
    eye_gap: float
    hair: tuple[int, int, int]
    iris: tuple[int, int, int]
    long_hair: bool
    wrinkles: bool
    shirt: tuple[int, int, int]


def look_for(profile: AvatarProfile) -> Look:
    """Return the head's proportions and colours for an avatar profile."""
    child = profile.age is AgeGroup.CHILD
    hair = {
        AgeGroup.CHILD: (92, 62, 40),
        AgeGroup.YOUNG: (70, 46, 32),
        AgeGroup.MIDDLE_AGED: (96, 82, 72),
        AgeGroup.ELDERLY: (196, 196, 200),
    }[profile.age]
    return Look(
        face=(118, 132) if child else (122, 158),
        eye_size=(26.0, 13.0) if child else (23.0, 9.0),
        eye_gap=46.0 if child else 50.0,
        hair=hair,
        iris=(70, 110, 150) if profile.gender is Gender.FEMALE else (96, 70, 46),
        long_hair=profile.gender is Gender.FEMALE,
        wrinkles=profile.age is AgeGroup.ELDERLY,
        shirt=(180, 90, 110) if profile.gender is Gender.FEMALE else (70, 100, 150),
    )


class ProceduralHead:
    """Draw one profile's talking head, frame by frame."""

    def __init__(self, profile: AvatarProfile, size: int = 512) -> None:
        self.size = size
        self.scale = size / 512.0
        self.look = look_for(profile)
        self.centre = np.array([256.0, 236.0 if profile.age is not AgeGroup.CHILD else 250.0])
        self.background = self._draw_background()
        self.head_rgb, self.head_alpha = self._draw_head_layer()
        ys, xs = np.nonzero(self.head_alpha > 0)
        pad = 40 * self.scale
        self.roi = (
            max(0, int(xs.min() - pad)), max(0, int(ys.min() - pad)),
            min(size, int(xs.max() + pad)), min(size, int(ys.max() + pad)),
        )  # fmt: skip

    # --- static layers ---------------------------------------------------------------------
    def _px(self, points: np.ndarray) -> np.ndarray:
        """Local head coordinates (512 scale, origin at the head centre) -> frame pixels."""
        return (points + self.centre) * self.scale

    def _draw_background(self) -> np.ndarray:
        s = self.size
        ramp = np.linspace(0, 1, s, dtype=np.float32)[:, None, None]
        top, bottom = np.array([214, 226, 236], np.float32), np.array([168, 184, 204], np.float32)
        frame = np.ascontiguousarray(np.broadcast_to(top + (bottom - top) * ramp, (s, s, 3)).astype(np.uint8))
        neck = self._px(np.array([[-38, 110], [38, 110], [44, 230], [-44, 230]], np.float32))
        cv2.fillPoly(frame, [neck.astype(np.int32)], _SKIN_SHADE, cv2.LINE_AA)
        shoulders = self._px(np.array([0.0, 330.0]))
        cv2.ellipse(
            frame, tuple(int(v) for v in shoulders), (int(210 * self.scale), int(130 * self.scale)),
            0, 180, 360, self.look.shirt, -1, cv2.LINE_AA,
        )  # fmt: skip
        return frame

    def _draw_head_layer(self) -> tuple[np.ndarray, np.ndarray]:
        s, k, look = self.size, self.scale, self.look
        rgb = np.zeros((s, s, 3), np.uint8)
        alpha = np.zeros((s, s), np.uint8)
        fw, fh = look.face

        def ellipse(centre: tuple[float, float], axes: tuple[float, float], colour: tuple[int, int, int]) -> None:
            c = tuple(int(v) for v in self._px(np.array(centre)))
            ax = (int(axes[0] * k), int(axes[1] * k))
            cv2.ellipse(rgb, c, ax, 0, 0, 360, colour, -1, cv2.LINE_AA)
            cv2.ellipse(alpha, c, ax, 0, 0, 360, 255, -1, cv2.LINE_AA)

        if look.long_hair:
            ellipse((0, 20), (fw + 30, fh + 40), look.hair)
            hair_fall = self._px(np.array([[-fw - 30, 20], [fw + 30, 20], [fw + 20, 175], [-fw - 20, 175]], np.float32))
            cv2.fillPoly(rgb, [hair_fall.astype(np.int32)], look.hair, cv2.LINE_AA)
            cv2.fillPoly(alpha, [hair_fall.astype(np.int32)], 255, cv2.LINE_AA)
        else:
            ellipse((0, -22), (fw + 10, fh - 8), look.hair)
        ellipse((-fw + 2, 8), (16, 28), _SKIN_SHADE)
        ellipse((fw - 2, 8), (16, 28), _SKIN_SHADE)
        ellipse((0, 0), (fw, fh), _SKIN)
        # Fringe: the hair's front edge, a cap over the top of the face.
        cap = self._px(np.array([0.0, -fh * 0.55]))
        cv2.ellipse(
            rgb, tuple(int(v) for v in cap), (int((fw + 4) * k), int(fh * 0.5 * k)), 0, 180, 360, look.hair, -1,
            cv2.LINE_AA,
        )  # fmt: skip
        nose = self._px(np.array([[-4, 10], [-13, 45], [-3, 50], [6, 47]], np.float32))
        cv2.polylines(rgb, [nose.astype(np.int32)], False, _SKIN_SHADE, max(1, int(3 * k)), cv2.LINE_AA)
        if look.wrinkles:
            for dy in (-78, -66):
                line = self._px(np.array([[x, dy + 0.002 * x * x] for x in range(-40, 41, 10)], np.float32))
                cv2.polylines(rgb, [line.astype(np.int32)], False, _SKIN_SHADE, max(1, int(2 * k)), cv2.LINE_AA)
            for side in (-1, 1):
                fold = self._px(np.array([[side * 24, 48], [side * 36, 72], [side * 40, 92]], np.float32))
                cv2.polylines(rgb, [fold.astype(np.int32)], False, _SKIN_SHADE, max(1, int(2 * k)), cv2.LINE_AA)
        return rgb, alpha

    # --- per frame -------------------------------------------------------------------------
    def frame(self, track: FaceTrack, i: int) -> np.ndarray:
        """Render frame ``i`` of ``track`` as an RGB uint8 array."""
        s = self.size
        pivot = (float(self.centre[0] * self.scale), float((self.centre[1] + 120) * self.scale))
        matrix = cv2.getRotationMatrix2D(pivot, float(track.head_angle[i]), 1.0)
        matrix[0, 2] += track.head_x[i] * s
        matrix[1, 2] += track.head_y[i] * s
        x0, y0, x1, y1 = self.roi
        shifted = matrix.copy()
        shifted[0, 2] -= x0
        shifted[1, 2] -= y0
        frame = self.background.copy()
        head = cv2.warpAffine(self.head_rgb, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        weight = cv2.warpAffine(self.head_alpha, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        weight = weight.astype(np.float32) / 255.0
        region = frame[y0:y1, x0:x1]
        frame[y0:y1, x0:x1] = cv2.blendLinear(head, region, weight, 1.0 - weight)
        self._draw_features(frame, matrix, track.expression, track, i)
        return frame

    def _draw_features(self, frame: np.ndarray, matrix: np.ndarray, e: Expression, track: FaceTrack, i: int) -> None:
        k = self.scale

        def to_px(points: np.ndarray) -> np.ndarray:
            return self._px(points) @ matrix[:, :2].T + matrix[:, 2]

        look = self.look
        ew, eh = look.eye_size
        openness = max(0.08, 1.0 + 0.45 * e.eye_open) * (1.0 - 0.95 * track.blink[i])
        for side in (-1, 1):
            cx, cy = side * look.eye_gap, -12.0
            self._draw_eye(frame, to_px, (cx, cy), ew, eh, openness, e, track.gaze_x[i], track.gaze_y[i])
            inner_y = -44 - 10 * e.brow_raise - 12 * e.brow_inner
            outer_y = -46 - 12 * e.brow_raise + 3 * e.brow_inner
            inner_x = cx - side * (ew - 4 + 4 * min(0.0, e.brow_inner))
            brow = np.array(
                [[inner_x, inner_y], [cx + side * 6, (inner_y + outer_y) / 2 - 5], [cx + side * (ew + 6), outer_y]],
                np.float32,
            )
            cv2.polylines(frame, [to_px(brow).astype(np.int32)], False, _darker(look.hair), max(2, int(7 * k)), cv2.LINE_AA)
        if e.lip_raise > 0.3:  # nose wrinkle (AU9)
            for dx in (-8, 8):
                wrinkle = np.array([[dx, 18], [dx * 1.6, 26]], np.float32)
                cv2.polylines(frame, [to_px(wrinkle).astype(np.int32)], False, _SKIN_SHADE, max(1, int(2 * k)), cv2.LINE_AA)
        self._draw_mouth(frame, to_px, e, float(track.mouth_open[i]))

    def _draw_eye(self, frame, to_px, centre, ew, eh, openness, e: Expression, gx: float, gy: float) -> None:
        k = self.scale
        xs = np.linspace(-ew, ew, 15)
        arc = np.sqrt(np.clip(1 - (xs / ew) ** 2, 0, 1))
        upper = np.stack([xs + centre[0], centre[1] - eh * openness * arc], axis=1)
        lower_lift = max(0.0, -e.eye_open) * 0.5  # cheek raise pushes the lower lid up
        lower = np.stack([xs[::-1] + centre[0], centre[1] + eh * (0.8 - lower_lift) * arc[::-1]], axis=1)
        outline = to_px(np.concatenate([upper, lower]).astype(np.float32)).astype(np.int32)
        x, y, w, h = cv2.boundingRect(outline)
        if w < 2 or h < 2:
            return
        roi = frame[y : y + h, x : x + w]
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [outline - (x, y)], 255, cv2.LINE_AA)
        eye = np.empty_like(roi)
        eye[:] = _EYE_WHITE
        iris_c = to_px(np.array([[centre[0] + gx * ew * 0.45, centre[1] + gy * eh * 0.35]], np.float32))[0] - (x, y)
        radius = int(eh * 0.95 * k) if self.look.eye_size[1] > 15 else int(eh * 0.9 * k)
        cv2.circle(eye, (int(iris_c[0]), int(iris_c[1])), radius, self.look.iris, -1, cv2.LINE_AA)
        cv2.circle(eye, (int(iris_c[0]), int(iris_c[1])), max(1, radius // 2), (20, 20, 24), -1, cv2.LINE_AA)
        blend = (mask.astype(np.float32) / 255.0)[..., None]
        roi[:] = (roi * (1 - blend) + eye * blend).astype(np.uint8)
        cv2.polylines(frame, [to_px(upper.astype(np.float32)).astype(np.int32)], False, _LINE, max(2, int(3 * k)), cv2.LINE_AA)

    def _draw_mouth(self, frame: np.ndarray, to_px, e: Expression, speech_open: float) -> None:
        k = self.scale
        jaw = min(1.0, max(0.0, e.jaw) + speech_open * (1.0 - 0.4 * max(0.0, e.jaw)))
        half_width = 36 * (1 + 0.22 * e.mouth_width + 0.12 * max(0.0, e.smile) - 0.1 * speech_open)
        corner_y = 86 - 13 * e.smile
        top_y = 84 - 7 * e.lip_raise - 2 * jaw
        bottom_y = 86 + 34 * jaw + 3 * max(0.0, -e.smile)
        xs = np.linspace(-half_width, half_width, 17)
        bend = 1 - (xs / half_width) ** 2
        upper = np.stack([xs, corner_y + (top_y - corner_y) * bend], axis=1)
        lower = np.stack([xs[::-1], corner_y + (bottom_y - corner_y) * bend[::-1]], axis=1)
        inside = to_px(np.concatenate([upper, lower]).astype(np.float32)).astype(np.int32)
        if jaw > 0.03:
            cv2.fillPoly(frame, [inside], MOUTH_INSIDE, cv2.LINE_AA)
        thickness = max(2, int(5 * k))
        cv2.polylines(frame, [to_px(upper.astype(np.float32)).astype(np.int32)], False, _LIP, thickness, cv2.LINE_AA)
        cv2.polylines(frame, [to_px(lower.astype(np.float32)).astype(np.int32)], False, _LIP, thickness + 1, cv2.LINE_AA)


def _darker(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    return tuple(int(c * 0.6) for c in colour)  # type: ignore[return-value]


def mouth_area(frame: np.ndarray, tolerance: int = 40) -> int:
    """Count a frame's pixels of the mouth's inside colour: how open the drawn mouth is."""
    distance = np.abs(frame.astype(np.int16) - np.array(MOUTH_INSIDE, np.int16)).max(axis=2)
    return int((distance <= tolerance).sum())


class ProceduralAvatar:
    """Avatar backend: the procedural head, encoded with the reply audio."""

    name = "procedural"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config

    def frames(self, speech: Speech, directives: AvatarDirectives, profile: AvatarProfile) -> tuple[FaceTrack, Iterator[np.ndarray]]:
        """Plan the face track and return it with a lazy iterator over the frames."""
        track = build_track(speech, directives, self.config.fps, self.config.seed)
        head = ProceduralHead(profile, self.config.size)
        return track, (head.frame(track, i) for i in range(track.frames))

    def animate(
        self, speech: Speech, audio_path: Path, directives: AvatarDirectives, profile: AvatarProfile, out_path: Path
    ) -> dict[str, object]:
        """Render the talking head for ``speech`` and write it with the audio to ``out_path``."""
        track, frames = self.frames(speech, directives, profile)
        size = self.config.size
        count = encode_mp4(frames, out_path, (size, size), self.config.fps, audio_path, self.config.video_crf, self.config.video_preset)
        return {
            "size": size,
            "fps": self.config.fps,
            "frames": count,
            "mouth_from": track.mouth_source,
            "expression": directives.expression.value,
            "intensity": directives.intensity,
            "gaze": directives.gaze,
            "head_motion": directives.head_motion,
        }
