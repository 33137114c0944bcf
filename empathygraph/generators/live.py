"""Speak a reply sentence by sentence while it is still being written.

``SentenceSpeaker`` is told when a reply starts (and how it will sound), each new piece of
its text, and the reply as it will finally be rendered. Each complete sentence is spoken
at once by a worker thread, through the renderer's sentence memo, so the render step that
follows finds it already made. A sentence spoken from a draft that the final reply no longer
has (a rewrite after a critique, a reply trimmed at a sentence end) is withdrawn: the
listener is told which sentences to drop, and the reply's own follow.
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from empathygraph.cpu_share import DECODE_YIELD
from empathygraph.generators.audio import write_wav
from empathygraph.generators.base import GeneratorError
from empathygraph.generators.renderer import PlanRenderer, join_speech
from empathygraph.generators.speech.text import CLAUSE_ENDS, complete_sentences, sentences
from empathygraph.schemas import AvatarProfile, SpeechStyle

SENTENCE_FILE = "sentence-{serial:03d}.wav"
SENTENCE_FILES = "sentence-*.wav"  # every file named by SENTENCE_FILE


@dataclass(frozen=True)
class SpokenSentence:
    """One sentence of the reply, spoken into a WAV file (``index`` counts from 0, in reply order)."""

    index: int
    text: str
    path: Path
    duration_s: float


Voice = tuple[SpeechStyle, AvatarProfile]


@dataclass(frozen=True)
class _Job:
    index: int
    text: str
    serial: int
    voice: Voice


class SentenceSpeaker:
    """Turn a reply that streams in into spoken sentences, in order, as soon as each is complete.

    Args:
        renderer: speaks a sentence (``sentence_audio``), remembering it for the render step.
        out_dir: where each sentence's WAV goes.
        on_spoken: called (from the worker thread) with each sentence once its audio is written.
        on_withdrawn: called with ``keep`` when sentences from index ``keep`` on are no longer
            the reply's (audio of them already announced is to be dropped).
    """

    def __init__(
        self,
        renderer: PlanRenderer,
        out_dir: Path,
        on_spoken: Callable[[SpokenSentence], None],
        on_withdrawn: Callable[[int], None],
    ) -> None:
        self.renderer = renderer
        self.out_dir = out_dir
        self._on_spoken = on_spoken
        self._on_withdrawn = on_withdrawn
        self._announced: list[_Job] = []
        self._voice: Voice | None = None
        self._draft = ""
        self._holds: Callable[[str], bool] | None = None
        self._lock = threading.Lock()
        self._serials = itertools.count()
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        # When a listener who plays each sentence as it arrives runs out of audio (monotonic seconds).
        self._heard_until: float | None = None

    def begin(self, speech: SpeechStyle, profile: AvatarProfile, holds: Callable[[str], bool] | None = None) -> None:
        """A reply starts being written (a rewrite starts again from its first word); a sentence of
        it that ``holds`` is not spoken from the draft (the settled reply says whether it is)."""
        with self._lock:
            self._use((speech, profile))
            self._draft = ""
            self._holds = holds

    def write(self, text: str) -> None:
        """More text of the reply being written; its sentences already complete are spoken."""
        with self._lock:
            if self._voice is None:  # a reply whose voice was not announced is spoken when settled
                return
            self._draft += text
            config = self.renderer.config
            written = complete_sentences(self._draft, config.max_sentence_chars, config.first_clause_words)
            # A sentence ``holds`` flags is skipped: the settled reply leaves it out when others remain,
            # so the ones after it keep their places.
            kept = [s for s in written if self._holds is None or not self._holds(s)]
            for index, sentence in enumerate(kept):
                self._announce(index, sentence)

    def settle(self, text: str, speech: SpeechStyle, profile: AvatarProfile) -> None:
        """The reply as it will be rendered: speak what is not spoken yet, withdraw what it lacks."""
        config = self.renderer.config
        try:
            final = sentences(text, config.max_sentence_chars, config.max_text_chars, config.first_clause_words)
        except GeneratorError:  # nothing to say; the render step reports it
            final = []
        with self._lock:
            self._use((speech, profile))
            self._draft = ""
            for index, sentence in enumerate(final):
                self._announce(index, sentence)
            self._withdraw(len(final))

    def close(self, *, wait: bool = True) -> None:
        """Finish the sentences announced (``wait``) and stop the worker."""
        if self._worker is not None:
            self._jobs.put(None)
            if wait:
                self._worker.join()
            self._worker = None

    # --- under the lock -------------------------------------------------------------------

    def _use(self, voice: Voice) -> None:
        if self._voice is not None and voice != self._voice:
            self._withdraw(0)  # spoken in another voice than the reply's
        self._voice = voice

    def _announce(self, index: int, sentence: str) -> None:
        if index < len(self._announced):
            if self._announced[index].text == sentence:
                return
            self._withdraw(index)
        if index > len(self._announced):  # only in order: a gap is filled first
            return
        assert self._voice is not None
        job = _Job(index, sentence, next(self._serials), self._voice)
        self._announced.append(job)
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="sentence-speaker", daemon=True)
            self._worker.start()
        self._jobs.put(job)

    def _withdraw(self, keep: int) -> None:
        if keep < len(self._announced):
            del self._announced[keep:]
            self._on_withdrawn(keep)

    def _current(self, job: _Job) -> bool:
        return job.index < len(self._announced) and self._announced[job.index] is job

    # --- the worker -----------------------------------------------------------------------

    def _opens_reply(self, job: _Job) -> bool:
        """Whether ``job`` speaks the reply's first sentence, or its rest after a first clause spoken alone."""
        return job.index == 0 or (job.index == 1 and self._announced[0].text.endswith(CLAUSE_ENDS))

    def _urgent(self, job: _Job) -> bool:
        """Whether the model should wait while ``job`` is spoken: nothing is heard before the first sentence, and
        a later one is urgent while the listener is about to run out of audio."""
        config = self.renderer.config
        if not config.first_sentence_first:
            return False
        if self._opens_reply(job):
            return True
        return self._heard_until is not None and self._heard_until - time.monotonic() < config.audio_ahead_s

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            with self._lock:
                if not self._current(job):
                    continue
                urgent = self._urgent(job)
            try:
                with DECODE_YIELD.urgent() if urgent else contextlib.nullcontext():
                    speech = join_speech(self.renderer.sentence_audio(job.text, *job.voice))
                path = self.out_dir / SENTENCE_FILE.format(serial=job.serial)
                self.out_dir.mkdir(parents=True, exist_ok=True)
                write_wav(path, speech.audio, speech.sample_rate)
            except Exception:  # noqa: BLE001, S112 - a voice that fails is reported by the render step, not here
                continue
            with self._lock:  # announced only if still the reply's, in order with any withdrawal
                if self._current(job):
                    now = time.monotonic()
                    self._heard_until = max(self._heard_until or now, now) + speech.duration
                    self._on_spoken(SpokenSentence(job.index, job.text, path, round(speech.duration, 3)))
