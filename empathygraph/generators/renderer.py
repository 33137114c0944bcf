"""The renderer the graph calls: speech first, then the avatar video on that speech.

Each medium is timed and reported as a ``RenderedMedia``; a failing backend becomes
``RenderedMedia(error=...)`` so the turn keeps its text and whatever else rendered.
Speech is made one sentence at a time and remembered for a while (``SpeechMemo``): a
sentence spoken while the reply was still being written (``generators.live``) is not
spoken again when the finished reply is rendered.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import numpy as np

from empathygraph.files import writing
from empathygraph.generators.audio import write_wav
from empathygraph.generators.base import (
    AvatarAnimator,
    GeneratorError,
    RenderedMedia,
    Speech,
    SpeechChunk,
    SpeechSynthesizer,
)
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.generators.speech.text import sentences
from empathygraph.schemas import AvatarProfile, ResponsePlan, SpeechStyle

AUDIO_FILE = "reply.wav"
VIDEO_FILE = "avatar.mp4"
MEMO_SENTENCES = 64


class SpeechMemo:
    """The audio of recent sentences, by the sentence and the voice that spoke it.

    A sentence that another thread is still speaking is waited for, not spoken twice; a
    failure is not remembered (the next request tries again).
    """

    def __init__(self, size: int = MEMO_SENTENCES) -> None:
        self.size = size
        self._made: OrderedDict[tuple[str, ...], Future[list[SpeechChunk]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, ...], make: Callable[[], list[SpeechChunk]]) -> list[SpeechChunk]:
        """The chunks remembered for ``key``, or ``make()``'s (raises what ``make`` raises)."""
        with self._lock:
            found = self._made.get(key)
            maker = found is None  # this caller makes it; any other waits on it
            if found is not None:
                self._made.move_to_end(key)
            else:
                found = self._made[key] = Future()
                while len(self._made) > self.size:
                    self._made.popitem(last=False)
        if maker:
            try:
                found.set_result(make())
            except BaseException as exc:  # even an interrupt: a waiter on this sentence must never wait forever
                found.set_exception(exc)
                with self._lock:
                    if self._made.get(key) is found:
                        del self._made[key]
                if not isinstance(exc, Exception):
                    raise
        return found.result()


class PlanRenderer:
    """Render a response plan with one speech and one avatar backend (either may be off).

    Backends are built on first use, so a missing optional package shows up as the
    medium's error in the trace rather than as a crash when the graph is built.
    """

    def __init__(
        self,
        config: GeneratorsConfig,
        speech: Callable[[], SpeechSynthesizer] | None,
        avatar: Callable[[], AvatarAnimator] | None,
    ) -> None:
        self.config = config
        self._speech_factory = speech
        self._avatar_factory = avatar
        self._speech: SpeechSynthesizer | None = None
        self._avatar: AvatarAnimator | None = None
        self._memo = SpeechMemo()

    @property
    def speech(self) -> SpeechSynthesizer | None:
        if self._speech is None and self._speech_factory is not None:
            self._speech = self._speech_factory()
        return self._speech

    @property
    def avatar(self) -> AvatarAnimator | None:
        if self._avatar is None and self._avatar_factory is not None:
            self._avatar = self._avatar_factory()
        return self._avatar

    def prepare(self) -> None:
        """Build the backends and load their models now, so the first turn does not pay for it."""
        for backend in (self.speech, self.avatar):
            warm = getattr(backend, "prepare", None)
            if callable(warm):
                warm()

    def speak(self, plan: ResponsePlan) -> Iterator[SpeechChunk]:
        """Stream the reply's speech one sentence at a time (raises ``GeneratorError``)."""
        self._voice()
        pieces = sentences(plan.text, self.config.max_sentence_chars, self.config.max_text_chars,
                           self.config.first_clause_words)
        return (chunk for piece in pieces for chunk in self.sentence_audio(piece, plan.speech, plan.profile))

    def sentence_audio(self, sentence: str, style: SpeechStyle, profile: AvatarProfile) -> list[SpeechChunk]:
        """One sentence (as ``sentences`` cuts a reply) spoken in ``style``; made once while remembered."""
        voice = self._voice()
        key = (voice.name, sentence, style.model_dump_json(), profile.model_dump_json())
        return self._memo.get(key, lambda: list(voice.stream(sentence, style, profile)))

    def _voice(self) -> SpeechSynthesizer:
        if self.speech is None:
            raise GeneratorError("speech: no speech backend is configured (generators.speech is 'none')")
        return self.speech

    def render(self, plan: ResponsePlan, out_dir: Path) -> list[RenderedMedia]:
        """Write ``reply.wav`` and ``avatar.mp4`` into ``out_dir``; never raises.

        Each file appears under its name only once complete (``empathygraph.files``).
        """
        out_dir = Path(out_dir)
        results: list[RenderedMedia] = []
        if self.config.speech == "none":
            return results
        voiced, speech = self._render_speech(plan, out_dir)
        results.append(voiced)
        if self.config.avatar != "none":
            results.append(self._render_avatar(plan, out_dir, speech, voiced))
        return results

    def _render_speech(self, plan: ResponsePlan, out_dir: Path) -> tuple[RenderedMedia, Speech | None]:
        media = RenderedMedia(backend=self.config.speech)
        start = time.perf_counter()
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            chunks: list[SpeechChunk] = []
            for chunk in self.speak(plan):
                if not chunks:
                    media.first_chunk_seconds = round(time.perf_counter() - start, 4)
                chunks.append(chunk)
            if not chunks:
                raise GeneratorError("speech: the voice produced no audio for this text")
            speech = join_speech(chunks)
            speech.settings = self.speech.describe(plan.speech, plan.profile) if self.speech else {}
            path = out_dir / AUDIO_FILE
            with writing(path) as partial:  # a crash mid-write leaves no reply.wav
                write_wav(partial, speech.audio, speech.sample_rate)
            media.files = {"audio": path}
            media.settings = {**speech.settings, "sentences": len(chunks), "sample_rate": speech.sample_rate}
            media.media_seconds = round(speech.duration, 3)
            return media, speech
        except Exception as exc:  # noqa: BLE001 - a failed generator degrades the turn, never crashes it
            media.error = _explain(exc, f"speech ({self.config.speech})")
            return media, None
        finally:
            media.seconds = round(time.perf_counter() - start, 4)

    def _render_avatar(
        self, plan: ResponsePlan, out_dir: Path, speech: Speech | None, voiced: RenderedMedia
    ) -> RenderedMedia:
        media = RenderedMedia(backend=self.config.avatar)
        start = time.perf_counter()
        try:
            if speech is None:
                raise GeneratorError(f"avatar: no audio to animate because speech failed: {voiced.error}")
            if self.avatar is None:
                raise GeneratorError("avatar: no avatar backend is configured")
            path = out_dir / VIDEO_FILE
            with writing(path) as partial:  # a crash mid-encoding leaves no avatar.mp4
                media.settings = self.avatar.animate(speech, voiced.files["audio"], plan.avatar, plan.profile, partial)
            media.files = {"video": path}
            media.media_seconds = round(speech.duration, 3)
        except Exception as exc:  # noqa: BLE001 - a failed generator degrades the turn, never crashes it
            media.error = _explain(exc, f"avatar ({self.config.avatar})")
        finally:
            media.seconds = round(time.perf_counter() - start, 4)
        return media


def join_speech(chunks: list[SpeechChunk]) -> Speech:
    """Join sentence chunks into one reply, shifting each chunk's phoneme times."""
    rate = chunks[0].sample_rate
    phonemes = []
    offset = 0.0
    for chunk in chunks:
        if chunk.sample_rate != rate:
            raise GeneratorError(f"speech: chunks disagree on sample rate ({chunk.sample_rate} vs {rate})")
        for p in chunk.phonemes:
            phonemes.append(type(p)(p.phoneme, p.start + offset, p.end + offset))
        offset += chunk.duration
    return Speech(np.concatenate([c.audio for c in chunks]).astype(np.float32), rate, phonemes)


def _explain(exc: Exception, where: str) -> str:
    """One line naming the generator and the problem."""
    if isinstance(exc, GeneratorError):
        return str(exc)
    return f"{where}: {type(exc).__name__}: {exc}"
