"""Avatar backends (talking-face video), by name: ``AVATARS``.

Each backend is a ``base.AvatarAnimator`` built from the ``GeneratorsConfig``; the face's
motion over a reply (``motion``: expression, blinks, gaze, head, mouth from the speech) and
the MP4 writer (``video``) are shared by them. A new avatar: copy ``portrait.py`` (a photo
animated by warping), then ``AVATARS.register("name", "module:Class")`` below, or from your
own package through the ``empathygraph.avatar`` entry point.
"""

from __future__ import annotations

from empathygraph.generators.base import AvatarAnimator
from empathygraph.generators.registry import Backends

AVATARS: Backends[AvatarAnimator] = Backends("avatar", "empathygraph.avatar")
AVATARS.register("procedural", "empathygraph.generators.avatar.procedural:ProceduralAvatar")
AVATARS.register("portrait", "empathygraph.generators.avatar.portrait:PortraitAvatar")
AVATARS.register("liveportrait", "empathygraph.generators.avatar.liveportrait:LivePortraitAvatar")
