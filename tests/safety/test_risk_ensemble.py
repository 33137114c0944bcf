"""The shipped risk model is the mean of several tuned tops saved side by side, and refuses a mismatched one."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from empathygraph.errors import BackendError
from empathygraph.tools.encoder_top import TopFile, TunedTop, save_top
from empathygraph.tools.risk_classifier import LABELS, RiskModel

transformers = pytest.importorskip("transformers")


@dataclass
class States:
    hidden: tuple[torch.Tensor, ...]
    mask: torch.Tensor


class TinyEncoder:
    """What ``RiskModel`` needs of a ``SentenceEncoder``: its transformer and the token states of texts."""

    def __init__(self) -> None:
        config = transformers.MPNetConfig(vocab_size=50, hidden_size=32, num_hidden_layers=4, num_attention_heads=4,
                                          intermediate_size=64)
        torch.manual_seed(0)
        self.transformer = transformers.MPNetModel(config).eval()

    def states(self, texts: list[str]) -> States:
        ids = torch.tensor([[0, 5 + len(t) % 20, 6, 7, 2] for t in texts])
        mask = torch.ones_like(ids)
        with torch.no_grad():
            out = self.transformer(input_ids=ids, attention_mask=mask, output_hidden_states=True)
        return States(out.hidden_states, mask)


def trained_like(encoder: TinyEncoder, seed: int, start: int = 2) -> TunedTop:
    torch.manual_seed(seed)
    top = TunedTop(encoder.transformer, start=start, outputs=len(LABELS), rank=2, alpha=4.0, dropout=0.0)
    with torch.no_grad():  # a trained delta, not the zero it starts as
        for name, p in top.named_parameters():
            if name.endswith(".b") or name.startswith("head"):
                p.normal_(0, 0.3)
    return top.eval()




META = {"threshold": 0.4, "gray": 0.1, "category_threshold": 0.3}


def test_the_model_is_the_mean_of_its_members(script, tmp_path) -> None:
    encoder = TinyEncoder()
    tops = [trained_like(encoder, seed) for seed in range(3)]
    script.save_ensemble(tmp_path / "risk_top.npz", tops, start=2, meta=META)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["risk_top.npz", "risk_top_1.npz", "risk_top_2.npz"]
    model = RiskModel(encoder, tmp_path / "risk_top.npz")
    assert len(model.tops) == 3 and model.thresholds.threshold == 0.4
    texts = ["one", "a longer text", "three words here"]
    states = encoder.states(texts)
    with torch.no_grad():
        each = [torch.sigmoid(top(states.hidden[2], states.mask)).numpy() for top in tops]
    np.testing.assert_allclose(model.probabilities(texts), np.mean(each, axis=0), atol=3e-3)  # float16 deltas
    assert not np.allclose(each[0], each[1], atol=1e-2), "the members differ, so the mean is not any one of them"


def test_many_texts_are_scored_a_batch_at_a_time_with_the_same_result(script, tmp_path, monkeypatch) -> None:
    from empathygraph.tools import risk_classifier

    encoder = TinyEncoder()
    script.save_ensemble(tmp_path / "risk_top.npz", [trained_like(encoder, 0)], start=2, meta=META)
    model = RiskModel(encoder, tmp_path / "risk_top.npz")
    texts = ["one", "a longer text", "three words here", "four", "and a fifth one"]
    whole = model.probabilities(texts)
    passes = []
    monkeypatch.setattr(risk_classifier, "BATCH", 2)
    monkeypatch.setattr(encoder, "states", lambda batch, states=encoder.states: passes.append(len(batch)) or states(batch))
    np.testing.assert_allclose(model.probabilities(texts), whole, atol=1e-5)
    assert passes == [2, 2, 1]
    assert model.probabilities([]).shape == (0, len(LABELS))


@dataclass
class EmbeddedStates(States):
    embedding: np.ndarray


class CachingEncoder(TinyEncoder):
    """A ``TinyEncoder`` with what the training script's state cache also reads: a name and sentence embeddings."""

    name = "tiny"

    def states(self, texts: list[str]) -> EmbeddedStates:
        found = super().states(texts)
        return EmbeddedStates(found.hidden, found.mask, found.hidden[-1].mean(1).numpy())


def test_the_probe_script_scores_cached_states_as_the_model_does(script, probe_script, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path / "home"))
    encoder = CachingEncoder()
    script.save_ensemble(tmp_path / "risk_top.npz", [trained_like(encoder, 0), trained_like(encoder, 1)],
                         start=2, meta=META)
    model = RiskModel(encoder, tmp_path / "risk_top.npz")
    texts = ["one", "a longer text", "three words here"]
    cached = probe_script.cached_probabilities(model)
    np.testing.assert_allclose(cached(texts), model.probabilities(texts), atol=2e-3)  # float16 states
    assert list((tmp_path / "home" / "risk-states" / "tiny-2").glob("*.pt")), "the states were kept on disk"
    assert cached([]).shape == (0, len(LABELS))


def test_a_member_reading_another_layer_is_refused(script, tmp_path) -> None:
    encoder = TinyEncoder()
    script.save_ensemble(tmp_path / "risk_top.npz", [trained_like(encoder, 0), trained_like(encoder, 1)],
                         start=2, meta=META)
    save_top(tmp_path / "risk_top_1.npz", trained_like(encoder, 1, start=1),
             TopFile(labels=LABELS, encoder="tiny", start=1, activation="sigmoid", meta={}))
    with pytest.raises(BackendError, match="risk_top_1.npz .* from layer 1"):
        RiskModel(encoder, tmp_path / "risk_top.npz")


def test_a_single_top_is_still_a_model(script, tmp_path) -> None:
    encoder = TinyEncoder()
    script.save_ensemble(tmp_path / "risk_top.npz", [trained_like(encoder, 0)], start=2, meta=META)
    assert [p.name for p in tmp_path.iterdir()] == ["risk_top.npz"]
    assert len(RiskModel(encoder, tmp_path / "risk_top.npz").tops) == 1
    assert json.loads(str(np.load(tmp_path / "risk_top.npz")["meta"]))["members"] == []


@pytest.mark.integration
def test_the_shipped_model_is_its_three_tops_over_the_real_encoder() -> None:
    from empathygraph.tools.text_emotion import TextEmotionClassifier

    model = RiskModel(TextEmotionClassifier().encoder)
    assert len(model.tops) == 3 and 0 < model.thresholds.gray <= model.thresholds.threshold < 0.5
    probs = model.probabilities(["I've written letters to everyone and I'm taking all my pills tonight.",
                                 "We're painting the kitchen yellow this weekend, the kids chose it."])
    assert probs.shape == (2, len(LABELS))
    # Alone, the classifier is set recall-first (its out-of-writer threshold reads held-out at 1.0 recall), so an
    # everyday message may pass it (this one scores ~0.14 against 0.065); the default screen averages it with the
    # risk probe (tests/safety/test_risk_probe.py). The disclosure reads plainly, far above the everyday message.
    assert probs[0, 0] >= model.thresholds.plain > 4 * probs[1, 0]
