"""A turn's events with its reply spoken sentence by sentence as it is written.

``speak_along`` runs the turn's event stream in a thread and a ``SentenceSpeaker`` beside
it: each complete sentence of the reply is spoken while the LLM writes the next (one with words
of violence or approval of harm is skipped: the settled reply leaves it out), and its
``SpeechReady`` joins the stream as soon as its audio is written, not when the graph next
reports. The render step then finds those sentences already spoken (the renderer's memo).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from empathygraph.agents.reply_checks import screen_flags
from empathygraph.generators.live import SentenceSpeaker, SpokenSentence
from empathygraph.generators.renderer import PlanRenderer
from empathygraph.schemas import ResponsePlan
from empathygraph.trace.events import (
    ReplyStarted,
    ReplyToken,
    SpeechReady,
    SpeechWithdrawn,
    StepFinished,
    TurnEvent,
    TurnFinished,
)


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_END = object()


def _follow(speaker: SentenceSpeaker, event: TurnEvent) -> None:
    """Tell the speaker what an event says about the reply."""
    if isinstance(event, ReplyStarted):
        screen = event.voice.screen
        holds = None if screen is None else partial(screen_flags, screen=screen)
        speaker.begin(event.voice.speech, event.voice.profile, holds)
    elif isinstance(event, ReplyToken):
        speaker.write(event.text)
    elif isinstance(event, StepFinished) and isinstance(plan := event.update.get("response"), ResponsePlan):
        speaker.settle(plan.text, plan.speech, plan.profile)


def speak_along(events: Iterator[TurnEvent], renderer: PlanRenderer, out_dir: Path) -> Iterator[TurnEvent]:
    """``events`` as they come, with each sentence's ``SpeechReady`` as soon as it is spoken.

    Every ``SpeechReady`` comes before ``TurnFinished``. A consumer that stops early leaves
    the turn to finish in the background (its session still records it).
    """
    inbox: queue.Queue[object] = queue.Queue()

    def spoken(sentence: SpokenSentence) -> None:
        inbox.put(SpeechReady(sentence.index, sentence.text, str(sentence.path), sentence.duration_s))

    def produce() -> None:
        try:
            for event in events:
                inbox.put(event)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            inbox.put(_Failed(exc))
        finally:
            inbox.put(_END)

    speaker = SentenceSpeaker(renderer, out_dir, spoken, lambda keep: inbox.put(SpeechWithdrawn(keep)))
    threading.Thread(target=produce, name="turn-events", daemon=True).start()
    finished: TurnFinished | None = None
    try:
        while (item := inbox.get()) is not _END:
            if isinstance(item, _Failed):
                raise item.error
            if isinstance(item, TurnFinished):
                finished = item  # it comes after every sentence still being spoken
                continue
            _follow(speaker, item)  # type: ignore[arg-type]
            yield item  # type: ignore[misc]
        speaker.close()
        while not inbox.empty():  # the last sentences, spoken while the graph closed the turn
            yield inbox.get_nowait()  # type: ignore[misc]
        if finished is not None:
            yield finished
    finally:
        speaker.close(wait=False)
