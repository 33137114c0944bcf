"""The default avatar: a procedural 2D talking head drawn with OpenCV, offline and fast.

Three parts: ``geometry`` (the head's proportions and colours by profile, the outlines of
its parts), ``expression`` (how an expression's action units shape the mouth, brows and
eyelids) and ``painting`` (the shaded head, painted once per expression, and each frame's
eyes, mouth and head motion). ``ProceduralAvatar`` is the backend that writes the video.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from empathygraph.generators.avatar.motion import FaceTrack, build_track
from empathygraph.generators.avatar.procedural.expression import mouth_shape
from empathygraph.generators.avatar.procedural.geometry import Look, MouthShape, look_for
from empathygraph.generators.avatar.procedural.painting import MOUTH_INSIDE, ProceduralHead, mouth_area
from empathygraph.generators.avatar.video import write_avatar_video
from empathygraph.generators.base import Speech
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarDirectives, AvatarProfile

__all__ = [
    "MOUTH_INSIDE",
    "Look",
    "MouthShape",
    "ProceduralAvatar",
    "ProceduralHead",
    "look_for",
    "mouth_area",
    "mouth_shape",
]


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
        settings = write_avatar_video(frames, out_path, audio_path, self.config, track.mouth_source, directives)
        return {**settings, "gaze": directives.gaze, "head_motion": directives.head_motion}
