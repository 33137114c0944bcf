"""Train the risk probe over the embedded backbone's hidden states and calibrate the screen with it.

1. Read every text the way a turn does (``Backbone.hidden_state`` over the person's words at the
   start of the first prompt, at ``--layer``: the runtime code path), kept in a restartable cache
   under ``~/.cache/empathygraph/probe-states/`` (~0.5 s a text on 2 cores).
2. Fit a standardised logistic regression (any risk) on the safety set's train split, its
   conversations as the screen reads them and ED first messages (as ``train_risk_classifier.py``).
3. Calibrate out of writer: each train message is scored by a probe fitted without its writer's
   fold; the screen's score blends that (``--blend``: the mean of their log-odds, or their plain
   mean) with the encoder classifier's own out-of-writer score (``--classifier-oow``: the
   ``--save-oow`` file of ``train_risk_classifier.py --folds-only`` with the shipped classifier's
   seeds), and the threshold keeps ``--recall`` of the disclosures.
4. Report the held-out split, the exam writer and everyday messages at that threshold, with the
   encoder classifier alone beside it, and write the probe.

    PYTHONPATH=. python scripts/train_risk_probe.py --classifier-oow OOW.npz --out empathygraph/tools/data/risk_probe.npz

The shipped probe (2026-12-07): ``--calibrate-on-unseen --classifier-states --hidden 64 --seeds 5 --ed-painful 1500
--blend log_odds --recall 1.0 --gray-false-alarms 0.5`` (see README Safety).

With ``--calibrate-on-unseen`` instead of ``--classifier-oow`` the thresholds are set on the train items
of the writers the shipped classifier never trained on (its own scores there are out of writer), at the
cost of fewer items: on three writers (w-y, 2026-12-04) recall fell to 0.97 on held-out.

The layer and C were chosen out of writer (2026-12-02, writers a-p, three-seed classifier scores):
false alarms at 0.98 recall of the averaged score 0.301 over the final states (C = 0.01; 0.285 at
C = 0.03), 0.293 / 0.271 / 0.313 / 0.287 over layers 8 / 12 / 16 / 20 (C = 0.01), and over layer 12
0.297 / 0.239 / 0.255 at C = 0.003 / 0.03 / 0.1.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from empathygraph.backbones import make_backbone
from empathygraph.backbones.config import BackboneConfig
from empathygraph.eval.probe_states import ProbeStates
from empathygraph.eval.safety_set import SafetyMessage, everyday_messages, load_conversations, load_messages
from empathygraph.tools.risk_classifier import RISK_TOP_PATH, RiskModel, RiskThresholds
from empathygraph.tools.risk_probe import BLEND_WORDS, BLENDS, RISK_PROBE_PATH, RiskProbe, blend_scores
from empathygraph.tools.text_emotion import SentenceEncoder

_spec = importlib.util.spec_from_file_location("train_risk_classifier", Path(__file__).with_name("train_risk_classifier.py"))
risk_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(risk_script)  # type: ignore[union-attr]


def fit_probe(cache: ProbeStates, items: list, c: float, risk_weight: float, hidden: int = 0, seeds: int = 1,
              alpha: float = 1.0) -> RiskProbe:
    """A probe (standardisation, then a logistic regression, or with ``hidden`` units ``seeds`` one-layer
    networks kept as one wider layer that averages their logits) fitted on ``items``; its thresholds are set later."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    x = cache.matrix([m.text for m in items])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z, risk = (x - mean) / scale, np.array([m.risk for m in items])
    if not hidden:
        model = LogisticRegression(C=c, max_iter=3000, class_weight={0: 1.0, 1: risk_weight})
        model.fit(z, risk)
        return RiskProbe(backbone=cache.backbone.name, mean=mean, scale=scale, coef=model.coef_[0],
                         intercept=float(model.intercept_[0]), thresholds=RiskThresholds(), layer=cache.layer)
    weights = np.where(risk, risk_weight, 1.0)
    nets = [MLPClassifier((hidden,), alpha=alpha, max_iter=400, random_state=seed).fit(z, risk, sample_weight=weights)
            for seed in range(seeds)]
    return RiskProbe(backbone=cache.backbone.name, mean=mean, scale=scale,
                     coef=np.concatenate([net.coefs_[1][:, 0] for net in nets]) / seeds,
                     intercept=float(np.mean([net.intercepts_[1][0] for net in nets])), thresholds=RiskThresholds(),
                     hidden_weight=np.concatenate([net.coefs_[0] for net in nets], axis=1),
                     hidden_bias=np.concatenate([net.intercepts_[0] for net in nets]), layer=cache.layer)


def probe_scores(probe: RiskProbe, cache: ProbeStates, texts: list[str]) -> np.ndarray:
    return probe.probabilities(cache.matrix(texts))


def classifier_oow(path: Path) -> dict[str, float]:
    """Each train message's out-of-writer any-risk score of the encoder classifier (mean over seeds)."""
    with np.load(path, allow_pickle=False) as data:
        return {str(i): float(s) for i, s in zip(data["ids"].tolist(), data["scores"], strict=True)}


def trained_writers(trained_on: str) -> set[str]:
    """The safety-set writers a shipped model's ``trained_on`` names ("... from writers a, b, d ...")."""
    found = re.search(r"from writers ((?:[a-z]+, )*[a-z]+)", trained_on)
    return set(found.group(1).split(", ")) if found else set()


def with_new_writers(oow: dict[str, float], messages: list[SafetyMessage], model: RiskModel) -> dict[str, float]:
    """``oow`` plus the train messages it lacks, scored by the shipped classifier: out of writer for it too,
    as it never trained on their writers (writers added after it was trained).

    Raises:
        SystemExit: a lacking message's writer is one the shipped classifier trained on.
    """
    missing = [m for m in messages if m.id not in oow]
    seen = {m.writer for m in missing} & trained_writers(model.trained_on)
    if seen:
        raise SystemExit(f"the out-of-writer file lacks items of writers {sorted(seen)}, which the shipped classifier "
                         "trained on: run train_risk_classifier.py --folds-only --save-oow again")
    if not missing:
        return oow
    print(f"{len(missing)} items of writers {sorted({m.writer for m in missing})} scored by the shipped classifier "
          "(never trained on them)", file=sys.stderr)
    scores = risk_script.message_scores(model.probabilities, missing)[:, 0]
    return {**oow, **{m.id: float(s) for m, s in zip(missing, scores, strict=True)}}


def calibration_scores(model: RiskModel, messages: list[SafetyMessage],
                       oow_path: Path | None) -> tuple[list[SafetyMessage], dict[str, float], str]:
    """The train messages the thresholds are set on, the encoder classifier's out-of-writer score of each, and
    where those scores come from: every message with ``oow_path`` (the classifier's writer-fold scores), else
    only those of writers the shipped classifier never trained on, scored by it (out of writer for it too).

    Raises:
        SystemExit: without ``oow_path``, the shipped classifier trained on every writer.
    """
    if oow_path is not None:
        return messages, with_new_writers(classifier_oow(oow_path), messages, model), oow_path.name
    seen = trained_writers(model.trained_on)
    unseen = [m for m in messages if m.writer not in seen]
    if not unseen:
        raise SystemExit("the shipped classifier trained on every writer: pass --classifier-oow "
                         "(train_risk_classifier.py --folds-only --save-oow)")
    writers = ", ".join(sorted({m.writer for m in unseen}))
    return unseen, with_new_writers({}, unseen, model), f"its own scores on writers {writers}, which it never trained on"


def cached_probabilities(model: RiskModel) -> risk_script.ScoreTexts:
    """The shipped tops' probabilities over the training script's cache of encoder states (layer ``start``,
    float16, encoding only texts it lacks): seconds where the full encoder takes tens of minutes for the
    reports, and the states the tops were trained on."""
    cache = risk_script.StateCache(model.encoder, model.tops[0].info.start)

    def score(texts: list[str]) -> np.ndarray:
        cache.ensure(texts)
        return risk_script.mean_probabilities([top.top for top in model.tops], cache, texts)

    return score


def rates(scores: np.ndarray, risk: np.ndarray, threshold: float) -> dict:
    fired = scores >= threshold
    return {"recall": round(float(fired[risk].mean()), 3), "false_positive_rate": round(float(fired[~risk].mean()), 3)}


def meta_of(path: Path) -> dict:
    """The JSON ``meta`` of a shipped ``.npz`` (a probe or a tuned top)."""
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["meta"]))


def set_meta(path: Path, compressed: bool, **keys: object) -> None:
    """Add ``keys`` to the JSON ``meta`` of a shipped ``.npz``, every array kept (``compressed`` as it was saved)."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["meta"] = np.array(json.dumps({**meta_of(path), **keys}))
    (np.savez_compressed if compressed else np.savez)(path, **arrays)


def record_plain_levels(blended_plain: float, alone_plain: float, blended: np.ndarray, encoder: np.ndarray,
                        risk: np.ndarray, plain_recall: float, source: str) -> None:
    """Write the plain levels (the probe's for the blended score, the classifier's for its score alone) into the
    shipped files and print what they keep out of writer: the disclosures read as plain, the false alarms not."""
    probe_file, classifier_file = RISK_PROBE_PATH, RISK_TOP_PATH
    why = f"out-of-writer score keeping {plain_recall} of the train split's disclosures (the encoder's: {source})"
    set_meta(probe_file, False, plain=round(blended_plain, 4), plain_why=why)
    set_meta(classifier_file, True, plain=round(alone_plain, 4), plain_why=why)  # tuned tops are saved compressed
    shipped = {"averaged": (blended, meta_of(probe_file)["threshold"]),
               "classifier_alone": (encoder, meta_of(classifier_file)["threshold"])}
    report = {}
    for (name, (scores, threshold)), plain in zip(shipped.items(), (blended_plain, alone_plain), strict=True):
        flagged = scores >= threshold
        report[name] = {"plain": round(plain, 4), "threshold": threshold,
                        "flagged_disclosures_read_plain": round(float((scores[flagged & risk] >= plain).mean()), 3),
                        "false_alarms_read_tentative": round(float((scores[flagged & ~risk] < plain).mean()), 3)}
    print(json.dumps({"plain_levels": report}, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=risk_script.SHARED, help="the shared data folder")
    parser.add_argument("--ed", type=int, default=600, help="ED train first messages added as negatives")
    parser.add_argument("--ed-painful", type=int, default=0,
                        help="more ED train first messages added as negatives, of painful emotions only (as the classifier's)")
    parser.add_argument("--layer", type=int, default=12, help="the layer whose outputs the probe reads (-1: the final states)")
    parser.add_argument("--c", type=float, default=0.03, help="inverse L2 strength of the logistic regression")
    parser.add_argument("--risk-weight", type=float, default=2.0)
    parser.add_argument("--hidden", type=int, default=0, help="hidden ReLU units of each network (0: a logistic regression)")
    parser.add_argument("--seeds", type=int, default=1, help="networks trained from seeds 0.. (their logits averaged)")
    parser.add_argument("--alpha", type=float, default=1.0, help="L2 strength of the networks")
    parser.add_argument("--recall", type=float, default=0.98, help="out-of-writer recall the threshold keeps")
    parser.add_argument("--gray-recall", type=float, default=0.995, help="out-of-writer recall of the gray band")
    parser.add_argument("--gray-false-alarms", type=float, default=None,
                        help="instead: the gray band fires on this share of the out-of-writer negatives (never above "
                             "the threshold; for a --recall so high that the gray recall cannot go lower)")
    parser.add_argument("--blend", choices=BLENDS, default="log_odds",
                        help="how the probe's probability and the encoder classifier's make the screen's score")
    parser.add_argument("--plain-recall", type=float, default=0.8,
                        help="out-of-writer recall of the plain level (below it the protocol's words are tentative)")
    parser.add_argument("--plain-only", action="store_true",
                        help="only compute the plain levels out of writer and record them in the shipped probe's and "
                             "classifier's files (which predate them); nothing is retrained")
    parser.add_argument("--folds", type=int, default=4,
                        help="writer groups for the probe's out-of-writer scores (as the classifier's --folds)")
    parser.add_argument("--classifier-oow", type=Path,
                        help="the encoder classifier's out-of-writer scores (.npz: ids, scores)")
    parser.add_argument("--calibrate-on-unseen", action="store_true",
                        help="without --classifier-oow: set the thresholds on the train items of the writers the shipped "
                             "classifier never trained on (fewer items)")
    parser.add_argument("--states-only", action="store_true", help="only read the states into the cache")
    parser.add_argument("--classifier-states", action="store_true",
                        help="score the reports' texts with the classifier over train_risk_classifier.py's cached "
                             "encoder states (float16) instead of the full encoder")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    messages = load_messages(splits={"train"})
    train = messages + risk_script.conversation_items(load_conversations(splits={"train"}))
    ed = risk_script.ed_negatives(args.data, args.ed, painful=args.ed_painful)
    checks = {"held_out": load_messages(splits={"held_out"}), "exam": load_messages(splits={"exam"}),
              "held_out_conversations": risk_script.conversation_items(load_conversations(splits={"held_out"}))}
    everyday = everyday_messages(args.data)
    cache = ProbeStates(make_backbone(BackboneConfig()), layer=None if args.layer < 0 else args.layer)
    cache.ensure([m.text for m in train + ed] + [m.text for items in checks.values() for m in items]
                 + [t for texts in everyday.values() for t in texts])
    if args.states_only:
        return
    if args.classifier_oow is None and not args.calibrate_on_unseen:
        raise SystemExit("--classifier-oow (or --calibrate-on-unseen) is needed to calibrate the blended score")

    writers = sorted({m.writer for m in train})
    shape = (args.c, args.risk_weight, args.hidden, args.seeds, args.alpha)
    probe_oow: dict[str, float] = {}
    for group in risk_script.writer_folds(writers, args.folds):
        fitted = fit_probe(cache, [m for m in train if m.writer not in group] + ed, *shape)
        held = [m for m in messages if m.writer in group]
        probe_oow.update(zip([m.id for m in held], probe_scores(fitted, cache, [m.text for m in held]), strict=True))
    model = RiskModel(SentenceEncoder())
    calibration, encoder_oow, source = calibration_scores(model, messages, args.classifier_oow)
    risk = np.array([m.risk for m in calibration])
    encoder = np.array([encoder_oow[m.id] for m in calibration])
    blended = blend_scores(encoder, np.array([probe_oow[m.id] for m in calibration]), args.blend)
    recalls = (args.recall, args.gray_recall, args.plain_recall)
    threshold, gray, plain = risk_script.levels(blended, risk, *recalls)
    if args.gray_false_alarms is not None:
        gray = min(threshold, float(np.quantile(blended[~risk], 1 - args.gray_false_alarms)))
    alone, _, alone_plain = risk_script.levels(encoder, risk, *recalls)
    if args.plain_only:
        record_plain_levels(plain, alone_plain, blended, encoder, risk, args.plain_recall, source)
        return
    result = {"threshold": round(threshold, 4), "gray": round(gray, 4), "plain": round(plain, 4),
              "out_of_writer": {"averaged": rates(blended, risk, threshold), "classifier_alone": rates(encoder, risk, alone)}}

    fitted = fit_probe(cache, train + ed, *shape)
    shipped = model.thresholds.threshold

    score_texts = cached_probabilities(model) if args.classifier_states else model.probabilities

    def classifier(texts: list[str]) -> np.ndarray:
        return risk_script.message_scores(score_texts, [risk_script.negative("", t, "", "") for t in texts])[:, 0]

    for name, items in checks.items():
        texts, truth = [m.text for m in items], np.array([m.risk for m in items])
        enc = classifier(texts)
        result[name] = {"averaged": rates(blend_scores(enc, probe_scores(fitted, cache, texts), args.blend), truth, threshold),
                        "classifier_alone": rates(enc, truth, shipped)}
    for name, texts in everyday.items():
        enc = classifier(texts)
        blended_everyday = blend_scores(enc, probe_scores(fitted, cache, texts), args.blend)
        result[name] = {"messages": len(texts), "averaged_flagged": int((blended_everyday >= threshold).sum()),
                        "classifier_alone_flagged": int((enc >= shipped).sum())}
    readout = (f"{args.seeds} network(s) of {args.hidden} ReLU units, alpha={args.alpha}" if args.hidden
               else f"logistic regression, C={args.c}")
    readout += " over " + (f"layer {cache.layer}'s outputs" if cache.layer is not None else "the final states")
    trained_on = (f"safety set train split ({len(train)} texts from writers {', '.join(writers)}) and {len(ed)} ED train "
                  f"first messages{f' ({args.ed_painful} of painful emotions)' if args.ed_painful else ''}; {readout}; thresholds from out-of-writer scores ({args.folds} writer folds) of the "
                  f"{BLEND_WORDS[args.blend]} with the encoder classifier ({source}) "
                  f"at recall {args.recall}")
    result["trained_on"] = trained_on
    print(json.dumps(result, indent=2))
    if args.out:
        probe = replace(fitted, thresholds=RiskThresholds(threshold, gray, model.thresholds.category, plain=plain),
                        trained_on=trained_on, blend=args.blend)
        probe.save(args.out, report={k: v for k, v in result.items() if k != "trained_on"})


if __name__ == "__main__":
    main()
