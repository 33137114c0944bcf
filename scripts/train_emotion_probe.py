"""Train the emotion probe over the embedded backbone's hidden states and choose its blend with the encoder.

1. Read ED **train** first utterances the way a turn does (``Backbone.hidden_state`` over the words at
   the start of the first prompt, at the risk probe's layer, so a turn reads one state for both
   probes), kept in the restartable cache under ``~/.cache/empathygraph/probe-states/`` (~0.45 s a
   text on 2 cores).
2. Fit a standardised multinomial logistic regression (32 emotions) on ``--fit`` training
   conversations drawn at random, never the 1,500 dev conversations the shipped text-emotion top
   was kept from (``train_text_emotion.split_dev``).
3. Choose C and the blend weight on those dev conversations, where both readers are out of sample:
   the blend is ``(1 - w) * encoder top + w * probe``.
4. Refit at the chosen C on fit + dev, report ED **valid** first utterances (every ``--valid-every``-th;
   neither reader ever saw ED valid) and write the probe.

    PYTHONPATH=. python scripts/train_emotion_probe.py --out empathygraph/tools/data/emotion_probe.npz

Shipped (2026-12-02, ``--cached-only --fit 12000``: the 8,142 of those conversations read by then, + dev = 9,642),
top-1 / top-3 / coarse 7-way:

    dev (1,500; C 0.001, w 0.3 chosen here)   encoder 0.539 / 0.804 / 0.760   blend 0.547 / 0.806 / 0.766
    ED valid, every 5th (554)                 encoder 0.480 / 0.756 / 0.713   probe alone 0.433 / 0.702 / 0.666
                                              blend 0.496 / 0.749 / 0.720

With 3,888 conversations (C 0.001, w 0.2) the probe alone read 0.410 of the same 554 and the blend 0.495; with
~2,000, 0.36. On dev, w from 0.2 to 0.5 are within 0.003 of each other at every C tried (0.001, 0.003, 0.01).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_text_emotion import Conversation, load_ed, scores, split_dev

from empathygraph.backbones import make_backbone
from empathygraph.backbones.config import BackboneConfig
from empathygraph.eval.probe_states import ProbeStates
from empathygraph.tools.emotion_probe import EMOTION_PROBE_PATH, EmotionProbe
from empathygraph.tools.risk_probe import RiskProbe
from empathygraph.tools.text_emotion import TextEmotionClassifier

WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


def first_utterances(convs: list[Conversation]) -> list[str]:
    return [c.turns[0] for c in convs]


def encoder_probabilities(classifier: TextEmotionClassifier, texts: list[str]) -> np.ndarray:
    """The shipped text-emotion top's 32 probabilities of ``texts`` (rows in ``classifier.labels`` order)."""
    return np.concatenate([classifier.read(texts[i:i + 64])[1] for i in range(0, len(texts), 64)])


def fit(states: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray, LogisticRegression]:
    mean, scale = states.mean(axis=0), states.std(axis=0) + 1e-6
    model = LogisticRegression(C=c, max_iter=3000).fit((states - mean) / scale, y)
    return mean, scale, model


def probe_of(mean: np.ndarray, scale: np.ndarray, model: LogisticRegression, labels: list[str], backbone: str,
             layer: int, weight: float) -> EmotionProbe:
    return EmotionProbe(backbone=backbone, layer=layer, labels=labels, mean=mean, scale=scale, coef=model.coef_.T,
                        intercept=model.intercept_, weight=weight)


def blended_scores(encoder: np.ndarray, probe: np.ndarray, y: np.ndarray, weight: float) -> dict:
    return scores((1 - weight) * encoder + weight * probe, y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--fit", type=int, default=8000, help="training conversations (random, dev excluded) to fit on")
    parser.add_argument("--c", type=float, nargs="+", default=[0.001, 0.003, 0.01], help="C values tried on dev")
    parser.add_argument("--layer", type=int, default=None, help="the layer read (default: the shipped risk probe's)")
    parser.add_argument("--valid-every", type=int, default=5, help="report every n-th ED valid first utterance")
    parser.add_argument("--cached-only", action="store_true",
                        help="fit on those of the --fit conversations whose states are cached already (read nothing "
                             "but the dev and valid texts)")
    parser.add_argument("--out", type=Path, default=None, help=f"write the probe here (e.g. {EMOTION_PROBE_PATH})")
    args = parser.parse_args()

    ed = args.data / "empathetic_dialogues"
    train, valid = load_ed(ed / "ed_train.jsonl"), load_ed(ed / "ed_valid.jsonl")[:: args.valid_every]
    _, dev = split_dev(train, 1500)  # the text-emotion top's dev conversations: it never trained on them
    held = {c.conv_id for c in dev}
    shuffled = list(train)
    random.Random(5).shuffle(shuffled)
    rest = [c for c in shuffled if c.conv_id not in held][: args.fit]
    layer = RiskProbe.load().layer if args.layer is None else args.layer
    backbone = make_backbone(BackboneConfig())
    cache = ProbeStates(backbone, layer=layer)
    cache.ensure(first_utterances(dev) + first_utterances(valid))
    if args.cached_only:
        rest = [c for c in rest if c.turns[0] in cache.states]
    cache.ensure(first_utterances(rest))

    classifier = TextEmotionClassifier()
    labels = list(classifier.labels)

    def matrix(convs: list[Conversation]) -> tuple[np.ndarray, np.ndarray]:
        return cache.matrix(first_utterances(convs)), np.array([labels.index(c.emotion) for c in convs])

    (x_fit, y_fit), (x_dev, y_dev), (x_valid, y_valid) = matrix(rest), matrix(dev), matrix(valid)
    enc_dev = encoder_probabilities(classifier, first_utterances(dev))
    enc_valid = encoder_probabilities(classifier, first_utterances(valid))

    on_dev = {}
    for c in args.c:
        mean, scale, model = fit(x_fit, y_fit, c)
        p_dev = model.predict_proba((x_dev - mean) / scale)
        for w in WEIGHTS:
            on_dev[(c, w)] = blended_scores(enc_dev, p_dev, y_dev, w)
            print(json.dumps({"dev": True, "C": c, "weight": w, **on_dev[(c, w)]}), flush=True)
    c, weight = max(on_dev, key=lambda key: (on_dev[key]["top1"], on_dev[key]["top3"]))

    mean, scale, model = fit(np.concatenate([x_fit, x_dev]), np.concatenate([y_fit, y_dev]), c)
    probe = probe_of(mean, scale, model, labels, backbone.name, layer, weight)
    p_valid = probe.probabilities(x_valid)
    report = {
        "chosen_on_dev": {"C": c, "weight": weight, "conversations": len(dev), "encoder": on_dev[(c, 0.0)],
                          "blend": on_dev[(c, weight)]},
        "ed_valid": {"every": args.valid_every, "encoder": scores(enc_valid, y_valid), "probe": scores(p_valid, y_valid),
                     "blend": blended_scores(enc_valid, p_valid, y_valid, weight)},
        "fit_conversations": len(rest) + len(dev),
    }
    print(json.dumps(report, indent=2))
    if args.out:
        trained_on = (f"ED train first utterances of {len(rest) + len(dev)} conversations, read at layer {layer}; "
                      f"C {c} and weight {weight} chosen on the 1,500 dev conversations the text-emotion top never saw")
        EmotionProbe(**{**probe.__dict__, "trained_on": trained_on, "report": report}).save(args.out)
        print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
