"""The perception tools a graph run can use, loaded lazily and shared across turns.

Tools are plain functions of their inputs with no LLM inside; this class only
holds the loaded models so a second turn does not load them again. Each loader is
guarded by a lock so parallel graph branches never load the same model twice.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TypeVar

import numpy as np

from empathygraph.errors import BackendError, InputError
from empathygraph.schemas import ChoiceCue, FaceCue, LabelScore, SafetyAssessment, TextEmotionCue, VoiceCue
from empathygraph.tools import audio_io, expression_trend, landmarks, media_io, prosody, speech_emotion
from empathygraph.tools.asr import Recognizer, load_recognizer
from empathygraph.tools.choice_screen import ChoiceProbe, ChoiceScreen
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.emotion_examples import ExampleBank, LabelledExample
from empathygraph.tools.emotion_probe import EMOTION_PROBE_PATH, EmotionProbe
from empathygraph.tools.face import MODEL_LABELS, ExpressionClassifier, FaceDetector, crop
from empathygraph.tools.landmarks import FaceMesh
from empathygraph.tools.risk import ProbeReading, RiskScreen
from empathygraph.tools.risk_classifier import RISK_TOP_PATH, RiskModel
from empathygraph.tools.risk_probe import RiskProbe
from empathygraph.tools.text_emotion import EMOTION_TOP_PATH, TextEmotionClassifier, coarse_ranking, ranked
from empathygraph.tools.word_emotion import WORD_EMOTION_PATH, WordEmotionReader

Probe = TypeVar("Probe", RiskProbe, EmotionProbe, WordEmotionReader)


class ToolBox:
    """Perception tools behind one object: text, safety, voice and face."""

    def __init__(self, config: PerceptionConfig | None = None) -> None:
        self.config = config or PerceptionConfig()
        self._locks = {name: threading.Lock() for name in ("text", "asr", "face")}
        self.text_emotion_unavailable: str | None = None
        self.risk_classifier_unavailable: str | None = None
        self.risk_probe_unavailable: str | None = None
        self._risk_probe: RiskProbe | None = None
        self.emotion_probe_unavailable: str | None = None
        self._emotion_probe: EmotionProbe | None = None
        self.word_emotion_unavailable: str | None = None
        self._word_emotion: WordEmotionReader | None = None
        self.choice_probe_unavailable: str | None = None
        self._choice_probe: ChoiceProbe | None = None
        # Conversation ids the example bank leaves out (an evaluation's held-out conversations).
        self.held_out: frozenset[str] = frozenset()
        # What an evaluation's cached predictions depend on: the class and the shipped emotion readers' files.
        files = b"".join(path.read_bytes() if path.is_file() else b""
                         for path in (EMOTION_TOP_PATH, WORD_EMOTION_PATH, EMOTION_PROBE_PATH))
        self.cache_key = f"{type(self).__name__}-{hashlib.sha256(files).hexdigest()[:12]}"

    # --- lazily loaded models -----------------------------------------------------------

    @cached_property
    def _text_classifier(self) -> TextEmotionClassifier:
        return TextEmotionClassifier()

    @cached_property
    def _risk_model(self) -> RiskModel:
        if not RISK_TOP_PATH.is_file():  # say so before loading the encoder it would run on
            raise BackendError(f"risk classifier not found at {RISK_TOP_PATH} (run scripts/train_risk_classifier.py)")
        return RiskModel(self._text_classifier.encoder)

    @cached_property
    def _choice_screen(self) -> ChoiceScreen:
        screen = ChoiceScreen.load()
        if screen.encoder != self._text_classifier.encoder.name:
            raise BackendError(f"the choice screen reads {screen.encoder} embeddings, the text-emotion encoder is "
                               f"{self._text_classifier.encoder.name}")
        return screen

    @cached_property
    def _example_bank(self) -> ExampleBank | None:
        path = self.config.emotion_examples
        return ExampleBank.from_ed(path, self._text_classifier.encoder, self.held_out) if path else None

    @cached_property
    def _reply_bank(self) -> ExampleBank | None:
        path = self.config.reply_examples
        return ExampleBank.from_replies(path, self._text_classifier.encoder, self.held_out) if path else None

    @cached_property
    def _recognizer(self) -> Recognizer:
        c = self.config
        return load_recognizer(c.asr_backend, c.asr_model, language=c.asr_language, beam_size=c.asr_beam_size)

    @cached_property
    def _face_models(self) -> tuple[FaceDetector, ExpressionClassifier, FaceMesh | None]:
        mesh = FaceMesh() if self.config.face_landmarks else None
        return FaceDetector(self.config.face_detect_width, self.config.face_min_size), ExpressionClassifier(), mesh

    def _load(self, lock: str, name: str):
        with self._locks[lock]:
            return getattr(self, name)

    def _text_model(self, name: str):
        """A model over the text-emotion encoder, loaded once; None when text emotion is off or
        cannot load here (``text_emotion_unavailable`` then says why)."""
        if not self.config.text_emotion or self.text_emotion_unavailable:
            return None
        try:
            return self._load("text", name)
        except BackendError as exc:
            self.text_emotion_unavailable = str(exc)
            return None

    def warm_up(self, *, text: bool = True, audio: bool = True, face: bool = True) -> dict[str, float]:
        """Load the chosen models now (e.g. at session start) and return seconds spent on each.

        A first call otherwise pays the load: about 5–12 s for text emotion (PyTorch and the
        sentence encoder), 1–3 s for ASR, well under a second for the face models.
        """
        spent: dict[str, float] = {}
        for wanted, lock, name in ((text, "text", "_text_classifier"), (audio, "asr", "_recognizer"),
                                   (face, "face", "_face_models")):  # fmt: skip
            if wanted:
                started = time.perf_counter()
                self._load(lock, name)
                spent[lock] = round(time.perf_counter() - started, 3)
        return spent

    # --- tools ---------------------------------------------------------------------------

    def screen_safety(self, text: str, earlier: Sequence[str] = (), *, careful: bool = False,
                      classifier: bool = True, probe: ProbeReading | None = None) -> SafetyAssessment:
        """Risk assessment of the user's words (typed and transcribed): patterns, and the trained classifier.

        Args:
            text: this turn's words.
            earlier: the person's earlier messages in the session, oldest first.
            careful: the session disclosed risk before (the classifier fires at its lower threshold).
            classifier: weigh the trained classifier (a tuned top over the text-emotion encoder); when it
                cannot load here the patterns screen alone and ``risk_classifier_unavailable`` says why.
            probe: the risk probe's reading of ``text`` (blended into the classifier's score).
        """
        model = self.risk_model() if classifier and text.strip() else None
        screen = RiskScreen(model.probabilities, model.thresholds) if model else RiskScreen()
        return screen.assess(text, earlier, careful=careful, probe=probe if model else None)

    def risk_probe(self) -> RiskProbe | None:
        """The risk probe over the embedded backbone's states, loaded once; None when its file cannot be
        read here (``risk_probe_unavailable`` says why)."""
        return self._probe_file("risk_probe", RiskProbe.load)

    def emotion_probe(self) -> EmotionProbe | None:
        """The emotion probe over the embedded backbone's states, loaded once; None when its file cannot be
        read here (``emotion_probe_unavailable`` says why)."""
        return self._probe_file("emotion_probe", EmotionProbe.load)

    def _probe_file(self, name: str, load: Callable[[], Probe]) -> Probe | None:
        """``load()`` once, kept as ``_<name>``; a file that cannot be read leaves why in ``<name>_unavailable``."""
        if getattr(self, f"{name}_unavailable"):
            return None
        if getattr(self, f"_{name}") is None:
            try:
                setattr(self, f"_{name}", load())
            except BackendError as exc:
                setattr(self, f"{name}_unavailable", str(exc))
        return getattr(self, f"_{name}")

    def risk_model(self) -> RiskModel | None:
        """The risk classifier, loaded once; None when it cannot load here (``risk_classifier_unavailable``)."""
        if self.risk_classifier_unavailable:
            return None
        try:
            return self._load("text", "_risk_model")
        except BackendError as exc:
            self.risk_classifier_unavailable = str(exc)
            return None

    def forget_recent(self) -> None:
        """Drop what the text models keep of recent messages, if loaded (benchmarks time first passes)."""
        if "_text_classifier" in self.__dict__:
            self._text_classifier.forget_recent()

    def text_emotion(self, text: str, llm_state: np.ndarray | None = None) -> TextEmotionCue | None:
        """Rank the 32 ED emotions for ``text``, and sum them into the 7 coarse ones.

        The encoder's distribution is first multiplied by the word reader's (``tools/word_emotion.py``, when
        ``word_emotion`` is on); with ``llm_state`` (the backbone's hidden state over the same words, read for the
        emotion probe) that is then blended with the emotion probe's (``tools/emotion_probe.py``). The cue keeps
        the encoder's own top 3 whenever either was blended in.

        Returns None when text emotion is disabled, the text is empty, or the classifier
        cannot be loaded here (its package or tuned top missing: ``text_emotion_unavailable`` says why).

        Raises:
            BackendError: ``llm_state`` was given but the emotion probe cannot read it.
        """
        classifier: TextEmotionClassifier | None = self._text_model("_text_classifier") if text.strip() else None
        if classifier is None:
            return None
        encoder = classifier.probabilities(text)
        probs, model = self._with_words(classifier, text, encoder)
        probe = self.emotion_probe() if llm_state is not None else None
        if probe is not None and llm_state is not None:
            probs = probe.blend(probs, classifier.labels, llm_state)
            model += f" + {probe.backbone} layer {probe.layer} probe ({probe.weight:g})"
        alone = ranked(classifier.labels, encoder, 3) if probs is not encoder else []
        top = ranked(classifier.labels, probs, self.config.text_emotion_top_k)
        return TextEmotionCue(top=top, model=model, coarse=coarse_ranking(probs, classifier.labels), encoder_top=alone)

    def word_emotion(self) -> WordEmotionReader | None:
        """The word-level emotion reader, loaded once; None when it is off or its file cannot be read here
        (``word_emotion_unavailable`` says why)."""
        return self._probe_file("word_emotion", WordEmotionReader.load) if self.config.word_emotion else None

    def _with_words(self, classifier: TextEmotionClassifier, text: str, encoder: np.ndarray) -> tuple[np.ndarray, str]:
        """The encoder's distribution with the word reader blended in when it is on (else ``encoder`` itself), and
        the readers' name."""
        words = self.word_emotion()
        if words is None:
            return encoder, classifier.name
        return words.blend(encoder, classifier.labels, text), f"{classifier.name} + words ({words.share:g})"

    def choice(self, text: str, llm_state: np.ndarray | None = None) -> ChoiceCue | None:
        """How likely ``text`` tells of a choice of their own that could hurt them or someone else: read by the
        choice probe over ``llm_state`` (the backbone's hidden state over the words, as ``words_state`` read it
        for this probe) when given, else over the text-emotion encoder's embedding (kept from
        ``text_emotion``'s reading of the same words).

        Returns None when the screen is off, the text is empty, or (without ``llm_state``) the text-emotion
        encoder cannot load here.

        Raises:
            BackendError: the reader's file is missing or reads other features.
        """
        if not self.config.choice_screen or not text.strip():
            return None
        probe = self.choice_probe() if llm_state is not None else None
        if probe is not None and llm_state is not None:
            reader: ChoiceProbe | ChoiceScreen = probe
            score = probe.probability(llm_state)
        else:
            classifier = self._text_model("_text_classifier")
            if classifier is None:
                return None
            reader = self._load("text", "_choice_screen")
            score = reader.probability(classifier.embed(text))
        return ChoiceCue(score=round(score, 4), threshold=reader.threshold, reader=reader.describe())

    def choice_probe(self) -> ChoiceProbe | None:
        """The choice probe over the embedded backbone's states, loaded once; None when its file cannot be read
        here (``choice_probe_unavailable`` says why)."""
        return self._probe_file("choice_probe", ChoiceProbe.load)

    def emotion_examples(self, text: str) -> list[LabelledExample]:
        """The labelled messages most like ``text`` (``emotion_examples``; empty when none is configured)."""
        if self.config.emotion_examples is None or not text.strip():
            return []
        bank: ExampleBank = self._load("text", "_example_bank")
        query = self._text_classifier.embed(text)
        return bank.nearest(query, self.config.emotion_example_count)

    def reply_examples(self, text: str) -> list[LabelledExample]:
        """Messages most like ``text``, each labelled with a listener's reply (``reply_examples``; empty when
        none is configured, or the text-emotion encoder that finds them is off or cannot load here)."""
        wanted = self.config.reply_examples is not None and text.strip()
        bank: ExampleBank | None = self._text_model("_reply_bank") if wanted else None
        if bank is None:
            return []
        return bank.nearest(self._text_classifier.embed(text), self.config.reply_example_count)

    def hear(self, audio: Path) -> VoiceCue:
        """Transcribe and describe the voice in ``audio``.

        Raises:
            InputError: corrupt, truncated, silent, over-long or unsupported audio.
        """
        c = self.config
        sound = audio_io.load_audio(
            Path(audio), max_seconds=c.max_audio_seconds, max_mb=c.max_audio_mb, min_rms_db=c.min_speech_rms_db
        )
        recognizer: Recognizer = self._load("asr", "_recognizer")
        transcript = recognizer.transcribe(sound.samples)
        measured = prosody.measure(sound.samples, transcript.words)
        emotions = self._text_classifier_ranking(transcript.text)
        confidence = float(np.mean([w.probability for w in transcript.words])) if transcript.words else 0.0
        valence, arousal = speech_emotion.estimate(measured, emotions, confidence)
        description = prosody.describe(measured)
        return VoiceCue(
            transcript=transcript.text,
            duration_s=round(sound.duration_s, 3),
            description=description if transcript.words else f"no words recognised; {description}",
            valence=round(valence, 3),
            arousal=round(arousal, 3),
            features=measured.as_features() | {"asr_confidence": round(confidence, 3)},
        )

    def _text_classifier_ranking(self, text: str) -> list[LabelScore]:
        """The full 32-way ranking of ``text`` for the voice's valence (empty when unavailable)."""
        classifier: TextEmotionClassifier | None = self._text_model("_text_classifier") if text.strip() else None
        if classifier is None:
            return []
        probs, _ = self._with_words(classifier, text, classifier.probabilities(text))
        return ranked(classifier.labels, probs, len(classifier.labels))

    def see(self, media: Path) -> FaceCue:
        """Read the facial expression in an image or video.

        Raises:
            InputError: unreadable media, a video without frames, or no face in any frame.
        """
        import cv2

        c, media = self.config, Path(media)
        video = media_io.is_video(media)
        frames = (
            media_io.sample_video(
                media,
                fps=c.face_frames_per_second,
                max_frames=c.face_max_frames,
                max_seconds=c.max_video_seconds,
                max_mb=c.max_media_mb,
                max_pixels=c.max_image_pixels,
            )
            if video
            else [media_io.load_image(media, max_pixels=c.max_image_pixels, max_mb=c.max_media_mb)]
        )
        detector, classifier, mesh = self._load("face", "_face_models")
        rows: list[np.ndarray] = []
        shapes: list[dict[str, float]] = []
        for frame in frames:
            grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            box = detector.largest(grey)
            if box is None:
                continue
            rows.append(classifier.probabilities(crop(grey, box)))
            if mesh is not None:
                points, presence = mesh.landmarks(frame.image, box)
                if presence >= 0.5:
                    shapes.append(landmarks.geometry(points))
        if not rows:
            where = f"any of {len(frames)} sampled frames" if video else "the image"
            raise InputError(f"no face found in {where}", media)
        summary = expression_trend.summarize(MODEL_LABELS, np.stack(rows), video)
        seen = f"face seen in {len(rows)}/{len(frames)} frames; " if video else ""
        return FaceCue(
            description=seen + summary.description,
            frames=len(rows),
            distribution=summary.distribution,
            peak=summary.peak,
            trend=summary.trend,
            features={k: round(float(np.mean([g[k] for g in shapes])), 4) for k in shapes[0]} if shapes else {},
        )
