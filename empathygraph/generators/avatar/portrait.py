"""Portrait mode: animate a user's photo with the same face track as the procedural head.

Landmarks come from OpenCV's shipped Haar cascades (face, then eyes inside it); the
mouth and brows are placed by face proportions. Each frame warps the photo with smooth
displacement fields (jaw drop, lip-corner pull, brow raise and knit), paints the mouth
opening, and moves the head (nod, tilt, shake).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from empathygraph.generators.avatar.motion import FaceTrack, build_track
from empathygraph.generators.avatar.video import write_avatar_video
from empathygraph.generators.base import GeneratorError, Speech
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarDirectives, AvatarProfile


@dataclass(frozen=True)
class FaceLandmarks:
    """Where the moving parts of a face are, in pixels of the (square) frame."""

    face: tuple[int, int, int, int]
    left_eye: tuple[float, float]
    right_eye: tuple[float, float]
    mouth: tuple[float, float]
    mouth_half_width: float
    face_height: float
    source: str

    def brow(self, eye: tuple[float, float]) -> tuple[float, float]:
        return eye[0], eye[1] - 0.11 * self.face_height


def load_portrait(path: Path | None, size: int) -> np.ndarray:
    """Read the portrait as an RGB square of ``size`` pixels (centre crop)."""
    if path is None:
        raise GeneratorError("portrait: set generators.portrait to a photo of a face")
    if not Path(path).is_file():
        raise GeneratorError(f"portrait: file not found: {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise GeneratorError(f"portrait: not a readable image: {path}")
    h, w = image.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    square = image[top : top + side, left : left + side]
    return cv2.cvtColor(cv2.resize(square, (size, size), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)


def find_landmarks(image: np.ndarray, path: Path | None = None) -> FaceLandmarks:
    """Locate the face, eyes and mouth with OpenCV's Haar cascades.

    Raises:
        GeneratorError: no face in the photo.
    """
    grey = cv2.equalizeHist(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY))
    cascades = Path(cv2.data.haarcascades)
    faces = cv2.CascadeClassifier(str(cascades / "haarcascade_frontalface_default.xml")).detectMultiScale(
        grey, scaleFactor=1.1, minNeighbors=5, minSize=(grey.shape[0] // 6, grey.shape[0] // 6)
    )
    if len(faces) == 0:
        raise GeneratorError(f"portrait: no face found in {path or 'the photo'}")
    x, y, w, h = (int(v) for v in max(faces, key=lambda r: r[2] * r[3]))
    upper = grey[y : y + h // 2, x : x + w]
    eyes = cv2.CascadeClassifier(str(cascades / "haarcascade_eye.xml")).detectMultiScale(
        upper, scaleFactor=1.1, minNeighbors=6, minSize=(w // 8, w // 8)
    )
    centres = sorted(((x + ex + ew / 2, y + ey + eh / 2) for ex, ey, ew, eh in eyes), key=lambda c: c[0])
    source = "haar face+eyes"
    if len(centres) >= 2 and centres[-1][0] - centres[0][0] > w * 0.25:
        left, right = centres[0], centres[-1]
    else:  # eyes not found: place them by average face proportions
        left, right = (x + 0.31 * w, y + 0.40 * h), (x + 0.69 * w, y + 0.40 * h)
        source = "haar face + proportions"
    eye_y = (left[1] + right[1]) / 2
    mouth = ((left[0] + right[0]) / 2, eye_y + 0.42 * h)
    return FaceLandmarks((x, y, w, h), left, right, mouth, 0.19 * w, float(h), source)


class PortraitRig:
    """Precomputed displacement fields that move one photo's mouth and brows."""

    def __init__(self, image: np.ndarray, marks: FaceLandmarks) -> None:
        self.image = image
        self.marks = marks
        size = image.shape[0]
        ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
        self.grid_x, self.grid_y = xs, ys
        h = marks.face_height
        mx, my = marks.mouth

        def blob(cx: float, cy: float, sx: float, sy: float) -> np.ndarray:
            return np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2) / 2).astype(np.float32)

        # The jaw: everything below the lips moves down, fading out at the chin and cheeks.
        self.jaw = blob(mx, my + 0.18 * h, 0.28 * h, 0.2 * h) * (ys > my).astype(np.float32)
        self.corners = [blob(mx + side * marks.mouth_half_width, my, 0.07 * h, 0.06 * h) for side in (-1, 1)]
        self.brows = [blob(*marks.brow(eye), 0.1 * h, 0.06 * h) for eye in (marks.left_eye, marks.right_eye)]
        inner = [(marks.left_eye[0] + 0.05 * h, marks.brow(marks.left_eye)[1]),
                 (marks.right_eye[0] - 0.05 * h, marks.brow(marks.right_eye)[1])]  # fmt: skip
        self.inner_brows = [blob(cx, cy, 0.05 * h, 0.05 * h) for cx, cy in inner]

    def frame(self, track: FaceTrack, i: int) -> np.ndarray:
        """Warp the photo into frame ``i`` of ``track``."""
        e, m, h = track.expression, self.marks, self.marks.face_height
        jaw = min(1.0, max(0.0, e.jaw) + float(track.mouth_open[i]))
        dy = self.jaw * (0.09 * h * jaw)
        dx = np.zeros_like(dy)
        for side, field in zip((-1, 1), self.corners):
            dy += field * (-0.035 * h * e.smile)
            dx += field * (side * 0.02 * h * (max(0.0, e.smile) + 0.5 * e.mouth_width))
        for field in self.brows:
            dy += field * (-0.035 * h * e.brow_raise)
        for side, field in zip((1, -1), self.inner_brows):
            dy += field * (-0.03 * h * e.brow_inner)
            dx += field * (side * 0.012 * h * min(0.0, e.brow_inner))
        warped = cv2.remap(self.image, self.grid_x - dx, self.grid_y - dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if jaw > 0.05:
            self._paint_opening(warped, jaw)
        size = warped.shape[0]
        pivot = (m.mouth[0], m.mouth[1] + 0.3 * h)
        matrix = cv2.getRotationMatrix2D(pivot, float(track.head_angle[i]), 1.0)
        matrix[0, 2] += track.head_x[i] * size
        matrix[1, 2] += track.head_y[i] * size
        return cv2.warpAffine(warped, matrix, (size, size), borderMode=cv2.BORDER_REFLECT)

    def _paint_opening(self, frame: np.ndarray, jaw: float) -> None:
        """Darken the gap between the parted lips, with soft edges."""
        m, h = self.marks, self.marks.face_height
        centre = (int(m.mouth[0]), int(m.mouth[1] + 0.045 * h * jaw))
        axes = (int(m.mouth_half_width * 0.6), max(1, int(0.045 * h * jaw)))
        x0, y0 = max(0, centre[0] - axes[0] - 4), max(0, centre[1] - axes[1] - 4)
        x1, y1 = min(frame.shape[1], centre[0] + axes[0] + 4), min(frame.shape[0], centre[1] + axes[1] + 4)
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.ellipse(mask, (centre[0] - x0, centre[1] - y0), axes, 0, 0, 360, 1.0, -1, cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (7, 7), 0)[..., None] * 0.75
        region = frame[y0:y1, x0:x1].astype(np.float32)
        frame[y0:y1, x0:x1] = (region * (1 - mask) + np.array([45, 18, 22], np.float32) * mask).astype(np.uint8)


class PortraitAvatar:
    """Avatar backend: the user's portrait, animated, encoded with the reply audio."""

    name = "portrait"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config

    def frames(self, speech: Speech, directives: AvatarDirectives) -> tuple[FaceTrack, FaceLandmarks, Iterator[np.ndarray]]:
        """Plan the track, find the landmarks and return a lazy frame iterator."""
        image = load_portrait(self.config.portrait, self.config.size)
        marks = find_landmarks(image, self.config.portrait)
        rig = PortraitRig(image, marks)
        track = build_track(speech, directives, self.config.fps, self.config.seed)
        return track, marks, (rig.frame(track, i) for i in range(track.frames))

    def animate(
        self, speech: Speech, audio_path: Path | None, directives: AvatarDirectives, profile: AvatarProfile, out_path: Path
    ) -> dict[str, object]:
        """Animate the portrait for ``speech`` and write the MP4 (audio muxed when given)."""
        track, marks, frames = self.frames(speech, directives)
        settings = write_avatar_video(frames, out_path, audio_path, self.config, track.mouth_source, directives)
        return {"portrait": str(self.config.portrait), "landmarks": marks.source, **settings}
