"""Run turns of a conversation: the entry point for the CLI and for Python users.

``Empathizer`` owns a compiled graph, a backbone and the tools, and turns a
``TurnInput`` into a ``TurnResult`` (``turn.py``). Sessions persist in the graph's checkpointer,
so a conversation resumes across runs by its session id, and a turn cut short by a crash or a
failed step resumes from its last finished step (``interrupted``, ``resume``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from empathygraph.agents.strategy_prior import StrategyPredictor, default_prior
from empathygraph.backbones import make_backbone
from empathygraph.backbones.base import Backbone
from empathygraph.config import Config
from empathygraph.context import MediaRenderer, RunContext
from empathygraph.errors import InputError
from empathygraph.graphs.merg import build_graph, keep_latest
from empathygraph.state import HistoryEntry, TurnInput
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.toolbox import ToolBox
from empathygraph.trace.events import STREAM_MODES, TurnEvent, turn_events
from empathygraph.turn import TurnResult

UpdateHandler = Callable[[str, dict[str, Any]], None]


def default_renderer(config: Config) -> MediaRenderer | None:
    """The configured speech and avatar generators (None when both are off)."""
    if config.generators.speech == "none" and config.generators.avatar == "none":
        return None
    from empathygraph.generators import build_renderer

    return build_renderer(config.generators)


def check_turn(turn: TurnInput, limits: PerceptionConfig) -> None:
    """Refuse a turn the run cannot take, before anything of it is stored (media are checked as they load).

    Raises:
        InputError: the message is longer than ``perception.max_text_chars``.
    """
    if turn.text and len(turn.text) > limits.max_text_chars:
        raise InputError(f"the message is {len(turn.text):,} characters long, over the {limits.max_text_chars:,} "
                         "character limit (perception.max_text_chars): send it in shorter messages")


class Empathizer:
    """Answer a person's turns with the MERG graph.

    Args:
        config: run configuration (defaults: embedded model, SQLite sessions).
        backbone: an LLM backbone; default built from ``config.backbone`` on first use.
        graph: a compiled graph (e.g. from ``build_graph`` with custom agents).
        toolbox: perception tools; default from ``config.perception``.
        renderer: media generators; default from ``config.generators``.
        strategy_prior: ranks the support strategies; default: the shipped ESConv prior.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        backbone: Backbone | None = None,
        graph: CompiledStateGraph | None = None,
        toolbox: ToolBox | None = None,
        renderer: MediaRenderer | None = None,
        strategy_prior: StrategyPredictor | None = None,
    ) -> None:
        self.config = config or Config()
        self.graph = graph if graph is not None else build_graph(self.config)
        self._backbone = backbone
        self.toolbox = toolbox or ToolBox(self.config.perception)
        self._renderer = renderer
        self._renderer_built = renderer is not None
        self.strategy_prior = strategy_prior if strategy_prior is not None else default_prior()

    @property
    def backbone(self) -> Backbone:
        """The LLM backbone (built, and for servers checked to be reachable, on first use)."""
        if self._backbone is None:
            self._backbone = make_backbone(self.config.backbone)
        return self._backbone

    @property
    def renderer(self) -> MediaRenderer | None:
        if not self._renderer_built:
            self._renderer = default_renderer(self.config)
            self._renderer_built = True
        return self._renderer

    def context(self, out_dir: Path | None) -> RunContext:
        return RunContext(
            config=self.config,
            backbone=self.backbone,
            toolbox=self.toolbox,
            strategy_prior=self.strategy_prior,
            renderer=self.renderer if out_dir is not None else None,
            out_dir=out_dir,
        )

    @staticmethod
    def _thread(session_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": session_id}}

    def stream(
        self,
        turn: TurnInput | str | None,
        *,
        session_id: str = "default",
        out_dir: Path | None = None,
        stream_mode: str | list[str] = "updates",
    ) -> Iterator[Any]:
        """Run one turn, yielding LangGraph stream events as they happen.

        ``turn=None`` resumes the session's interrupted turn (see ``interrupted``); a new turn
        given while one is interrupted replaces it.

        Raises:
            InputError: ``turn`` is None and the session has no interrupted turn.
        """
        if turn is None:
            if self.interrupted(session_id) is None:
                raise InputError(f"session '{session_id}' has no interrupted turn to resume")
            start: dict[str, Any] | None = None
        else:
            turn = TurnInput(text=turn) if isinstance(turn, str) else turn
            check_turn(turn, self.config.perception)
            start = {"session_id": session_id, "turn": turn}
        yield from self.graph.stream(
            start,
            self._thread(session_id),
            context=self.context(out_dir),
            stream_mode=stream_mode,
            # A checkpoint after every step: a turn cut short (a crash, a failed step) is kept
            # up to its last finished step and resumes from there; ``history`` gains the turn
            # only at its last step, so the session always holds exactly the finished turns.
            # ``sessions.checkpoints: turn`` saves only when the turn ends or fails (a kill loses it).
            durability="sync" if self.config.sessions.checkpoints == "step" else "exit",
        )
        if self.graph.checkpointer is not None:  # the turn finished: its steps' checkpoints may go
            keep_latest(self.graph.checkpointer, session_id)

    def interrupted(self, session_id: str) -> TurnInput | None:
        """The session's turn that started but did not finish (killed, or a step failed); None if none.

        Resume it with ``resume`` (or ``respond(None)``): it goes on from its last finished step.
        """
        snapshot = self.graph.get_state(self._thread(session_id))
        return snapshot.values.get("turn") if snapshot.next else None

    def resume(self, session_id: str, *, out_dir: Path | None = None,
               on_update: UpdateHandler | None = None) -> TurnResult:
        """Finish the session's interrupted turn from its last finished step.

        Raises:
            InputError: the session has no interrupted turn.
        """
        return self.respond(None, session_id=session_id, out_dir=out_dir, on_update=on_update)

    def events(
        self,
        turn: TurnInput | str | None,
        *,
        session_id: str = "default",
        out_dir: Path | None = None,
    ) -> Iterator[TurnEvent]:
        """Run one turn, yielding typed events as they happen; the last is ``TurnFinished``.

        See ``empathygraph.trace.events`` for the events (steps started and finished,
        reflection verdicts, reply tokens, media ready). With media (``out_dir``) and a voice,
        the reply is spoken sentence by sentence while it is written (``SpeechReady``).
        """
        started = time.perf_counter()
        stream = self.stream(turn, session_id=session_id, out_dir=out_dir, stream_mode=STREAM_MODES)
        events = turn_events(stream, lambda: self._result(session_id, time.perf_counter() - started))
        renderer = self.renderer if out_dir is not None else None
        if renderer is not None:
            from empathygraph.generators import PlanRenderer
            from empathygraph.live_speech import speak_along

            if isinstance(renderer, PlanRenderer) and renderer.config.speech != "none":
                events = speak_along(events, renderer, out_dir)
        yield from events

    def respond(
        self,
        turn: TurnInput | str | None,
        *,
        session_id: str = "default",
        out_dir: Path | None = None,
        on_update: UpdateHandler | None = None,
    ) -> TurnResult:
        """Run one turn to the end and return its result.

        Args:
            turn: the user's turn, or plain text; None resumes the interrupted turn.
            session_id: the conversation this turn belongs to.
            out_dir: where media go (None: no media rendered).
            on_update: called with (node name, its state update) as each step finishes.
        """
        started = time.perf_counter()
        for update in self.stream(turn, session_id=session_id, out_dir=out_dir):
            for node, change in update.items():
                if on_update is not None and isinstance(change, dict):
                    on_update(node, change)
        return self._result(session_id, time.perf_counter() - started)

    def _result(self, session_id: str, seconds: float) -> TurnResult:
        values = self.graph.get_state(self._thread(session_id)).values
        result = TurnResult.from_state(values, session_id, seconds=seconds, backbone=self.backbone.name)
        result.redact = self.config.trace.redact  # the caller sees the words; what it writes does not hold them
        return result

    def history(self, session_id: str) -> list[HistoryEntry]:
        """The finished turns of a session, oldest first."""
        return list(self.graph.get_state(self._thread(session_id)).values.get("history", []))

    def prepare(self) -> dict[str, float]:
        """Load every model now (the backbone, the perception tools, the voice and the avatar).

        Returns:
            Seconds spent on each part, e.g. ``{"backbone": 3.1, "text": 6.0, "asr": 1.2, ...}``.
        """
        spent: dict[str, float] = {}
        started = time.perf_counter()
        load = getattr(self.backbone.chat_model, "load", None)  # the embedded model loads on first use otherwise
        if callable(load):
            load()
        spent["backbone"] = round(time.perf_counter() - started, 3)
        spent.update(self.toolbox.warm_up(text=self.config.perception.text_emotion))
        started = time.perf_counter()
        prepare = getattr(self.renderer, "prepare", None)
        if callable(prepare):
            prepare()
            spent["generators"] = round(time.perf_counter() - started, 3)
        return spent

    def forget(self, session_id: str) -> None:
        """Delete a session from the store (its history and every checkpoint)."""
        self.graph.checkpointer.delete_thread(session_id)

    def close(self) -> None:
        """Close the session store's connection (a PostgreSQL pool, a SQLite file); no turn runs after."""
        connection = getattr(self.graph.checkpointer, "conn", None)
        if callable(close := getattr(connection, "close", None)):
            close()
