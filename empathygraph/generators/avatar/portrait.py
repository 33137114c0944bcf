"""Portrait mode: a photo-real listener, a frontal portrait animated by landmark-driven warps.

The photo is the profile's packaged person (``people``: chosen by gender and age) or any
frontal portrait (``generators.portrait``). The face mesh finds 468 points on it; the rig
(``warp``) turns moves of those points into dense fields once per portrait: the expression
(the person's own, learned from their expression sheet, or the packaged people's mean;
upper and lower face apart, each at its calibrated gain, ``expression_gains``), the jaw, lip rounding and spreading, blinks and gaze (``portrait_moves``). Every frame
mixes the fields by the face track (``motion``: visemes from the speech's phonemes, or
its loudness), adds the head's nod, tilt or shake (the shoulders stay), warps the photo
once and paints the inside of the mouth between the parted lips (``mouth``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from empathygraph.generators.avatar.expression_gains import AS_LEARNED, ExpressionGain, stored_gains
from empathygraph.generators.avatar.expression_texture import portrait_shading
from empathygraph.generators.avatar.face_points import INNER_LIP_LOWER, INNER_LIP_UPPER, mesh_points
from empathygraph.generators.avatar.motion import FaceTrack, build_track
from empathygraph.generators.avatar.mouth import paint_mouth
from empathygraph.generators.avatar.people import people, person_for
from empathygraph.generators.avatar.portrait_moves import SPEECH_MOVES, expression_moves, speech_moves, split_face
from empathygraph.generators.avatar.video import write_avatar_video
from empathygraph.generators.avatar.warp import Rig, invert
from empathygraph.generators.base import GeneratorError, Speech
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarDirectives, AvatarProfile, CoarseEmotion

_FACE_SHARE = 0.55  # the face box's share of the frame's side after cropping
_SHADING_RANGE = (0.5, 1.25)  # the skin may darken into a crease this far, brighten on a bulge this far
_INNER_LIPS = list(INNER_LIP_UPPER) + list(INNER_LIP_LOWER)


@dataclass(frozen=True)
class PortraitSource:
    """The photo to animate and, for a packaged person, whose expression sheet moves it."""

    path: Path
    person_id: str | None
    shading_from: str  # whose expression sheet shades the skin: the person's own, or the profile's packaged person


def portrait_source(config: GeneratorsConfig, profile: AvatarProfile) -> PortraitSource:
    """The configured photo, or the packaged person who fits ``profile``."""
    if config.portrait is not None:
        path = Path(config.portrait)
        packaged = {p.portrait.resolve(): p.person_id for p in people()} if path.is_file() else {}
        own = packaged.get(path.resolve())
        return PortraitSource(path, own, own or person_for(profile).person_id)
    person = person_for(profile)
    return PortraitSource(person.portrait, person.person_id, person.person_id)


def load_portrait(path: Path, size: int) -> np.ndarray:
    """Read the portrait as an RGB square of ``size`` pixels, framed on the face.

    Raises:
        GeneratorError: the file is missing, unreadable, or shows no face.
    """
    if not Path(path).is_file():
        raise GeneratorError(f"portrait: file not found: {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise GeneratorError(f"portrait: not a readable image: {path}")
    from empathygraph.generators.avatar.face_points import face_models

    detector, _ = face_models()
    box = detector.largest(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    if box is None:
        raise GeneratorError(f"portrait: no face found in {path}")
    side = int(min(max(box.w, box.h) / _FACE_SHARE, *image.shape[:2]))
    cx, cy = box.x + box.w / 2, box.y + box.h * 0.58
    left = int(np.clip(cx - side / 2, 0, image.shape[1] - side))
    top = int(np.clip(cy - side / 2, 0, image.shape[0] - side))
    square = image[top : top + side, left : left + side]
    resized = cv2.resize(square, (size, size), interpolation=cv2.INTER_AREA if side > size else cv2.INTER_CUBIC)
    return cv2.cvtColor(resized, cv2.COLOR_BGR2RGB)


class PortraitRig:
    """One portrait, its control points and the dense fields of every movement it makes.

    ``gains`` (by emotion; the calibrated ones unless given) scale each expression's upper
    face, lower face and shading; the calibration script swaps them on a built rig.
    """

    def __init__(
        self,
        image: np.ndarray,
        person_id: str | None,
        shading_from: str,
        source: Path | None = None,
        gains: dict[CoarseEmotion, ExpressionGain] | None = None,
    ) -> None:
        self.image = image
        self.size = image.shape[0]
        try:
            points = mesh_points(image)
        except GeneratorError as exc:
            raise GeneratorError(f"portrait: {exc} in {source or 'the photo'}") from exc
        self.points = points
        self.shading_from = shading_from
        # Another person's creases, borrowed for a face with no sheet, are drawn as learned, never stronger:
        # exaggerated, they repaint the face as someone else's.
        self.own_shading = person_id == shading_from
        self._shading: dict[CoarseEmotion, np.ndarray | None] = {}
        self._sources: dict[tuple[CoarseEmotion, float], np.ndarray] = {}
        self.rig = Rig(points, self.size, step=2)
        moves = speech_moves(self.rig)
        self.gains = dict(stored_gains()) if gains is None else gains
        mean = expression_moves(self.rig, None)
        own = mean if person_id is None else expression_moves(self.rig, person_id)  # no sheet: the mean is its own
        self.expressions = list(own)
        # Four rows per emotion: the upper and lower face of the person's own movement, then of the people's mean.
        halves = [half for e in self.expressions for move in (own[e], mean[e]) for half in split_face(self.rig, move)]
        all_moves = [*(moves[m] for m in SPEECH_MOVES), *halves]
        self.lip_moves = np.stack([m[_INNER_LIPS] for m in all_moves]).astype(np.float32)
        # How far each movement parts the lips (middle of the mouth), as a share of the jaw's widest opening:
        # speech opens an already open mouth (surprise) less, so the two never add up to a gape.
        middle = len(INNER_LIP_UPPER) // 2
        gaps = self.lip_moves[:, len(INNER_LIP_UPPER) + middle, 1] - self.lip_moves[:, middle, 1]
        self.opening = np.clip(gaps / max(float(gaps[0]), 1e-6), 0.0, 1.0)
        fields = self.rig.fields(all_moves)
        self.grid_shape = fields.shape[1:]
        self.fields = fields.reshape(len(fields), -1)  # one flat row per movement: a frame mixes a few rows
        unit = self.rig.frame.scale
        chin_y = float(points[152, 1])
        self.pivot = np.array([float(points[152, 0]), chin_y + 0.35 * unit])
        n = self.rig.grid_n
        ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) * self.rig.step + (self.rig.step - 1) / 2
        self.grid = np.stack([xs, ys], axis=-1)
        self.pivot = self.pivot.astype(np.float32)
        # The head moves; below the chin the motion fades out so the shoulders stay.
        self.head_mask = (np.clip((chin_y + 0.9 * unit - ys) / (0.7 * unit), 0.0, 1.0)[..., None] ** 2).astype(np.float32)

    def shading(self, expression: CoarseEmotion) -> np.ndarray | None:
        """The expression's brightness ratio on this photo (None for neutral); about a second the first time."""
        if expression not in self._shading:
            self._shading[expression] = portrait_shading(self.points, self.size, self.shading_from, expression)
        return self._shading[expression]

    def source(self, expression: CoarseEmotion, strength: float) -> np.ndarray:
        """The photo with the expression's shading change (creases, furrows) applied, before any warp."""
        gain = self.gains.get(expression, AS_LEARNED).shading
        key = (expression, round(strength * (gain if self.own_shading else min(gain, 1.0)), 3))
        if key not in self._sources:
            ratio = self.shading(expression)
            if ratio is None:
                self._sources[key] = self.image
            else:
                # Shade the lightness only: scaling R, G and B would clip bright skin toward white.
                lab = cv2.cvtColor(self.image, cv2.COLOR_RGB2LAB).astype(np.float32)
                lab[..., 0] = np.clip(lab[..., 0] * np.clip(ratio ** key[1], *_SHADING_RANGE), 0, 255)
                self._sources[key] = cv2.cvtColor(lab.astype(np.uint8), cv2.COLOR_LAB2RGB)
        return self._sources[key]

    def weights(self, track: FaceTrack, i: int, expression: CoarseEmotion, strength: float) -> np.ndarray:
        """Each field's weight in frame ``i``."""
        shape = track.lip_shape[i] if track.lip_shape is not None else 0.0
        gain = self.gains.get(expression, AS_LEARNED)
        # The expression's added action units: wide eyes still blink shut, a stretched mouth still rounds.
        lids = track.blink[i] - strength * gain.eyes_wide * (1.0 - track.blink[i])
        spread = max(0.0, shape) + strength * gain.lip_stretch * (1.0 - max(0.0, -shape))
        speech = [track.mouth_open[i], max(0.0, -shape), spread, lids, lids, track.gaze_x[i], track.gaze_y[i]]
        expressions = np.zeros(4 * len(self.expressions), np.float32)
        at = 4 * self.expressions.index(expression)
        own, mean = 1.0 - gain.mean_share, gain.mean_share
        expressions[at : at + 4] = np.array([own * gain.upper, own * gain.lower, mean * gain.upper, mean * gain.lower]) * strength
        already = float(self.opening[len(SPEECH_MOVES) :] @ expressions)
        speech[0] = speech[0] * max(0.35, 1.0 - already) + strength * gain.jaw
        return np.concatenate([np.array(speech, np.float32), expressions])

    def _head(self, at: np.ndarray, track: FaceTrack, i: int) -> np.ndarray:
        """Where the head's motion moves positions ``at`` (..., 2), in pixels."""
        angle = np.deg2rad(float(track.head_angle[i]))
        turn = np.array([[np.cos(angle) - 1, np.sin(angle)], [-np.sin(angle), np.cos(angle) - 1]], np.float32)
        shift = np.array([track.head_x[i], track.head_y[i]], np.float32) * self.size
        return (at - self.pivot) @ turn.T + shift

    def frame(self, track: FaceTrack, i: int, expression: CoarseEmotion, strength: float) -> np.ndarray:
        """Warp the portrait into frame ``i`` and paint the open mouth."""
        weights = self.weights(track, i, expression, strength)
        used = np.flatnonzero(weights)  # most rows are still in any one frame
        forward = (weights[used] @ self.fields[used]).reshape(self.grid_shape)
        forward += self._head(self.grid, track, i) * self.head_mask
        backward = invert(forward, self.rig.step)
        dense = cv2.resize(backward, (self.size, self.size), interpolation=cv2.INTER_LINEAR)
        out = cv2.remap(self.source(expression, strength), dense[..., 0], dense[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        lips = self.rig.mesh[_INNER_LIPS] + np.tensordot(weights, self.lip_moves, axes=1)
        lips = lips + self._head(lips.astype(np.float32), track, i)
        half = len(INNER_LIP_UPPER)
        paint_mouth(out, lips[:half], lips[half:])
        return out


@lru_cache(maxsize=4)
def _rig(source: PortraitSource, size: int) -> PortraitRig:
    return PortraitRig(load_portrait(source.path, size), source.person_id, source.shading_from, source.path)


class PortraitAvatar:
    """Avatar backend: a portrait photo, animated, encoded with the reply audio."""

    name = "portrait"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config

    def rig(self, profile: AvatarProfile) -> tuple[PortraitSource, PortraitRig]:
        """The portrait for ``profile`` and its rig (built once per photo and size)."""
        source = portrait_source(self.config, profile)
        return source, _rig(source, self.config.size)

    def prepare(self) -> None:
        """Build the default profile's rig and expression shadings now (seconds) instead of in the first turns."""
        _, rig = self.rig(AvatarProfile())
        for expression in CoarseEmotion:
            rig.shading(expression)

    def frames(self, speech: Speech, directives: AvatarDirectives, profile: AvatarProfile) -> tuple[FaceTrack, Iterator[np.ndarray]]:
        """Plan the face track and return it with a lazy iterator over the frames."""
        _, rig = self.rig(profile)
        track = build_track(speech, directives, self.config.fps, self.config.seed)
        strength = 0.35 + 0.65 * directives.intensity
        return track, (rig.frame(track, i, directives.expression, strength) for i in range(track.frames))

    def animate(
        self, speech: Speech, audio_path: Path | None, directives: AvatarDirectives, profile: AvatarProfile, out_path: Path
    ) -> dict[str, object]:
        """Animate the portrait for ``speech`` and write the MP4 (audio muxed when given)."""
        source, _ = self.rig(profile)
        track, frames = self.frames(speech, directives, profile)
        settings = write_avatar_video(frames, out_path, audio_path, self.config, track.mouth_source, directives)
        movement = "own expression sheet" if source.person_id else "packaged people's mean"
        return {"portrait": str(source.path), "person": source.person_id, "expressions": movement, **settings}
