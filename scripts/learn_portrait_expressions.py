"""Learn each packaged person's expression movements from their labelled sheet; write the .npz the portrait avatar reads.

Run: .venv/bin/python scripts/learn_portrait_expressions.py [--check]

For every person in ``openpeople``: the face mesh on the sheet's neutral, happy, sad,
angry, surprised, disgusted and scared photos, each aligned on the neutral one, in face
units; then made left-right symmetric with the mirror pairs of the people's mean neutral
face. Stored per person (``P001/joy``) and as the mean over people (``mean/joy``), which
moves a face that has no sheet. Prints how far each person's movements are from the mean.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from empathygraph.generators.avatar.expression_sheet import DATA, EMOTIONS, learn_sheet, symmetric
from empathygraph.generators.avatar.face_points import mirror_index
from empathygraph.generators.avatar.people import people
from empathygraph.schemas import CoarseEmotion

NOSE_TIP, LIP_ABOVE, LIP_BELOW = 4, 13, 14


def learn_all() -> dict[str, np.ndarray]:
    raw = {p.person_id: learn_sheet(p.expression_sheet) for p in people()}
    mean_neutral = np.mean([r["neutral_shape"] for r in raw.values()], axis=0)
    mirror = mirror_index(mean_neutral)
    stored: dict[str, np.ndarray] = {"mean/neutral_shape": mean_neutral}
    learned = {pid: symmetric(r, mirror) for pid, r in raw.items()}
    for emotion in EMOTIONS:
        if emotion is not CoarseEmotion.NEUTRAL:
            stored[f"mean/{emotion.value}"] = np.mean([m[emotion.value] for m in learned.values()], axis=0)
    lower_face = mean_neutral[:, 1] > mean_neutral[NOSE_TIP, 1]
    for pid, moves in learned.items():
        for key, value in moves.items():
            if key != "neutral_shape" and _hidden_mouth(value, stored[f"mean/{key}"]):
                # The mesh cannot see lips under a full beard: the mouth's movement is the people's mean.
                value = np.where(lower_face[:, None], stored[f"mean/{key}"], value)
                print(f"{pid} {key}: lips hardly part where the others' do; mouth movement from the mean")
            stored[f"{pid}/{key}"] = value
    return {k: v.astype(np.float32) for k, v in stored.items()}


def _hidden_mouth(move: np.ndarray, mean: np.ndarray) -> bool:
    """True when the others part their lips for this emotion and this face hardly does."""
    part, usual = move[LIP_BELOW, 1] - move[LIP_ABOVE, 1], mean[LIP_BELOW, 1] - mean[LIP_ABOVE, 1]
    return bool(usual > 0.05 and part < 0.4 * usual)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    args = parser.parse_args()
    stored = learn_all()
    summary = {
        key: round(float(np.abs(value).max()), 4) for key, value in stored.items() if key.startswith("mean/") and "neutral" not in key
    }
    if args.check:
        with np.load(DATA) as old:
            worst = max(float(np.abs(old[k] - v).max()) for k, v in stored.items())
        print(json.dumps({"max_difference_face_units": round(worst, 5), "largest_movement": summary}))
        return
    DATA.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(DATA, **stored)
    print(json.dumps({"wrote": str(DATA), "arrays": len(stored), "largest_movement": summary}))


if __name__ == "__main__":
    main()
