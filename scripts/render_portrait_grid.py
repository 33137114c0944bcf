"""Render the portrait avatar's frame grid: each packaged person shown, one column per emotion, mid-sentence.

Run: .venv/bin/python scripts/render_portrait_grid.py [--people P003 P007] [--out docs/portrait_grid.jpg]

Each cell is the frame where the mouth is widest in the first half of "That sounds exhausting." spoken
by Kokoro (the mouth follows its phonemes), at the directives' intensity 0.8, cropped to
the face. The rows are the default young woman's person and the young man's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from empathygraph.generators import GeneratorsConfig, build_renderer
from empathygraph.generators.avatar.motion import build_track
from empathygraph.generators.avatar.people import person, person_for
from empathygraph.generators.base import Speech
from empathygraph.schemas import AvatarDirectives, AvatarProfile, CoarseEmotion, Gender, ResponsePlan, SpeechStyle

CELL = 220


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", nargs="*", default=[person_for(AvatarProfile()).person_id,
                                                         person_for(AvatarProfile(gender=Gender.MALE)).person_id])  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("docs/portrait_grid.jpg"))
    args = parser.parse_args()
    rows = []
    for person_id in args.people:
        who = person(person_id)
        profile = AvatarProfile(gender=Gender.FEMALE if who.sex == "female" else Gender.MALE)
        config = GeneratorsConfig(speech="kokoro", avatar="portrait", portrait=who.portrait)
        renderer = build_renderer(config)
        style = SpeechStyle(emotion=CoarseEmotion.NEUTRAL, rate=1.0, pitch=0.0, energy=0.5)
        chunk = next(renderer.speak(ResponsePlan(
            text="That sounds exhausting.", speech=style,
            avatar=AvatarDirectives(expression=CoarseEmotion.NEUTRAL, intensity=0.8), profile=profile,
        )))  # fmt: skip
        speech = Speech(chunk.audio, chunk.sample_rate, chunk.phonemes)
        _, rig = renderer.avatar.rig(profile)  # type: ignore[union-attr]
        cells = []
        for emotion in CoarseEmotion:
            directives = AvatarDirectives(expression=emotion, intensity=0.8)
            track = build_track(speech, directives, config.fps, config.seed)
            index = int(np.argmax(track.mouth_open[: track.frames // 2]))  # mid-word, mouth open
            frame = rig.frame(track, index, emotion, 0.35 + 0.65 * directives.intensity)
            face = cv2.resize(frame[40:440, 56:456], (CELL, CELL), interpolation=cv2.INTER_AREA)
            cv2.putText(face, emotion.value, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 2, cv2.LINE_AA)
            cells.append(face)
        rows.append(np.hstack(cells))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.out), cv2.cvtColor(np.vstack(rows), cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 88])
    print(args.out)


if __name__ == "__main__":
    main()
