"""How strongly the portrait draws each emotion's learned movement: gains calibrated on the tuning classifier.

A sheet photo shows an expression at the strength the person posed it; a listener seen
at 512 px, talking, needs it plainer, and one person's pose of a rarer emotion (fear,
disgust) can be idiosyncratic. Each emotion gets three gains over its learned movement
(the upper face: brows, lids; the lower face: cheeks, mouth, chin; the skin's shading:
creases), a share of the packaged people's mean movement mixed into the person's own,
and how far the rig's own action units join in where the emotion's EMFACS prototype has
them (fear: AU5 upper-lid raise, AU20 lip stretch, AU26 jaw drop; surprise: AU5, AU26) and
the sheet poses show them only faintly. ``scripts/calibrate_portrait_expressions.py`` chooses them on
the bundled classifier (``tools/face.py``) over several packaged people and writes
``data/portrait_expression_gains.json``; the second classifier of ``eval/face_readers.py``
is never consulted, so it stays a held-out check. An emotion missing from the file is drawn as learned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from empathygraph.generators.base import GeneratorError
from empathygraph.schemas import CoarseEmotion

GAINS = Path(__file__).parent / "data" / "portrait_expression_gains.json"


@dataclass(frozen=True)
class ExpressionGain:
    """Multipliers of one emotion's learned movement (upper and lower face) and of its shading change.

    ``mean_share``: how much of the movement is the packaged people's mean (0: the person's own only).
    ``eyes_wide``, ``lip_stretch``, ``jaw``: action units added at full expression strength, as shares
    of the rig's blink (reversed), lip spread and jaw movements.
    """

    upper: float = 1.0
    lower: float = 1.0
    shading: float = 1.0
    mean_share: float = 0.0
    eyes_wide: float = 0.0
    lip_stretch: float = 0.0
    jaw: float = 0.0

    def __post_init__(self) -> None:
        limits = (("upper", 4.0), ("lower", 4.0), ("shading", 4.0), ("mean_share", 1.0), ("eyes_wide", 0.6),
                  ("lip_stretch", 2.5), ("jaw", 0.6))  # fmt: skip
        for name, high in limits:
            value = getattr(self, name)
            if not 0.0 <= value <= high:
                raise GeneratorError(f"portrait expression gain {name}={value} is outside [0, {high}]")


AS_LEARNED = ExpressionGain()


@lru_cache(maxsize=1)
def stored_gains(path: Path = GAINS) -> dict[CoarseEmotion, ExpressionGain]:
    """The calibrated gains by emotion (empty when the file is absent: every emotion drawn as learned).

    Raises:
        GeneratorError: the file is not valid JSON or names an unknown emotion or field.
    """
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text())["gains"]
        return {CoarseEmotion(name): ExpressionGain(**values) for name, values in raw.items()}
    except (ValueError, KeyError, TypeError) as exc:
        raise GeneratorError(f"portrait: unreadable expression gains in {path}: {exc}") from exc
