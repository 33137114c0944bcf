"""A tuned top: copies of an encoder's upper layers with low-rank deltas, saved small and loaded back exactly."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from empathygraph.errors import BackendError
from empathygraph.tools.encoder_top import LoadedTop, TopFile, TunedTop, save_top

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_encoder():
    config = transformers.MPNetConfig(vocab_size=50, hidden_size=32, num_hidden_layers=4, num_attention_heads=4,
                                      intermediate_size=64)
    torch.manual_seed(0)
    return transformers.MPNetModel(config).eval()


def states(encoder, start: int):
    ids = torch.tensor([[0, 5, 6, 7, 2], [0, 9, 2, 1, 1]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    with torch.no_grad():
        out = encoder(input_ids=ids, attention_mask=mask, output_hidden_states=True)
    return out.hidden_states[start], mask


def test_only_the_deltas_norms_and_head_train_and_the_encoder_is_untouched(tiny_encoder):
    before = {k: v.clone() for k, v in tiny_encoder.state_dict().items()}
    top = TunedTop(tiny_encoder, start=2, outputs=3, rank=2, alpha=4.0)
    trainable = {name for name, p in top.named_parameters() if p.requires_grad}
    assert trainable and all(".a" in n or ".b" in n or "LayerNorm" in n or n.startswith("head") for n in trainable)
    hidden, mask = states(tiny_encoder, 2)
    loss = top(hidden, mask).sum()
    loss.backward()
    torch.optim.SGD([p for p in top.parameters() if p.requires_grad], lr=0.5).step()
    assert all(torch.equal(before[k], v) for k, v in tiny_encoder.state_dict().items())


def test_a_saved_top_loads_back_with_the_same_outputs(tiny_encoder, tmp_path):
    top = TunedTop(tiny_encoder, start=2, outputs=3, rank=2, alpha=4.0, dropout=0.0)
    with torch.no_grad():  # a trained delta, not the zero it starts as
        for name, p in top.named_parameters():
            if name.endswith(".b"):
                p.normal_(0, 0.05)
    top.eval()
    hidden, mask = states(tiny_encoder, 2)
    expected = torch.sigmoid(top(hidden, mask)).detach().numpy()
    save_top(tmp_path / "top.npz", top, TopFile(labels=["a", "b", "c"], encoder="tiny", start=2,
                                                activation="sigmoid", meta={"threshold": 0.4}))
    loaded = LoadedTop(tmp_path / "top.npz", tiny_encoder)
    assert loaded.info.meta == {"threshold": 0.4} and loaded.info.labels == ["a", "b", "c"]
    np.testing.assert_allclose(loaded.probabilities(hidden, mask), expected, atol=2e-3)  # float16 deltas


def test_a_loaded_top_shares_the_encoders_linear_weights_and_leaves_them_as_they_were(tiny_encoder, tmp_path):
    before = {k: v.clone() for k, v in tiny_encoder.state_dict().items()}
    top = TunedTop(tiny_encoder, start=2, outputs=3, rank=2, alpha=4.0, dropout=0.0)
    save_top(tmp_path / "top.npz", top, TopFile(labels=["a", "b", "c"], encoder="tiny", start=2,
                                                activation="sigmoid", meta={}))
    loaded = LoadedTop(tmp_path / "top.npz", tiny_encoder)
    own = tiny_encoder.encoder.layer[2].attention.attn.q.weight
    assert loaded.top.layers[0].attention.attn.q.base.weight.data_ptr() == own.data_ptr()  # no copy in memory
    assert loaded.top.layers[0].attention.LayerNorm.weight.data_ptr() != tiny_encoder.encoder.layer[2].attention.LayerNorm.weight.data_ptr()
    assert all(torch.equal(before[k], v) for k, v in tiny_encoder.state_dict().items())


def test_a_missing_file_is_a_clear_error(tiny_encoder, tmp_path):
    with pytest.raises(BackendError, match="not found"):
        LoadedTop(tmp_path / "nope.npz", tiny_encoder)
