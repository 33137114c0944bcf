"""``empathygraph chat``: a multi-turn conversation in the terminal, with attached files.

Type text to talk. ``/audio PATH``, ``/image PATH`` and ``/video PATH`` attach a file
to the next message (``/send`` sends attachments without text). The session lives in
the checkpointer, so ``--session ID`` resumes it after quitting; a message the listener
never finished answering (the process was killed, a step failed) is offered again on
start and by ``/resume``, and goes on from its last finished step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from empathygraph.cli.common import (
    ConfigOption,
    SessionOption,
    SetOption,
    console,
    drop_live_sentences,
    fail,
    run_config,
)
from empathygraph.errors import EmpathyGraphError
from empathygraph.files import inside, safe_name
from empathygraph.session import Empathizer, TurnResult
from empathygraph.state import TurnInput

HELP = (
    "type to talk · /audio PATH, /image PATH, /video PATH attach a file to your next message · "
    "/send sends attachments alone · /resume finishes an interrupted message · /history · /quit"
)
ATTACHMENTS = ("audio", "image", "video")


@dataclass
class Composer:
    """The message being written: attachments wait here until text or /send."""

    attachments: dict[str, Path] = field(default_factory=dict)

    def attach(self, kind: str, argument: str) -> str:
        """Attach a file; return what to tell the person."""
        if not argument:
            raise EmpathyGraphError(f"/{kind} needs a file path")
        path = Path(argument).expanduser()
        if not path.is_file():
            raise EmpathyGraphError(f"{path}: no such file")
        self.attachments[kind] = path
        return f"attached {kind}: {path} (sent with your next message)"

    def take(self, text: str | None) -> TurnInput:
        """The turn to send (clears the attachments)."""
        turn = TurnInput(text=text or None, **self.attachments)
        self.attachments = {}
        return turn


def summary(result: TurnResult) -> str:
    """The reply's emotion reading and strategy in one line."""
    e, s = result.emotion, result.empathy
    causes = "; ".join(f'"{c}"' for c in e.causes)
    return (f"[dim]reading:[/dim] {e.emotion.value} ({e.coarse.value}) · valence {e.valence:+.1f} · "
            f"arousal {e.arousal:+.1f} · cause {escape(causes)} · [dim]strategy:[/dim] {s.strategy.value} · "
            f"{result.seconds:.1f}s")


def _history(empathizer: Empathizer, session_id: str, out: Console) -> None:
    for entry in empathizer.history(session_id):
        out.print(f"  {entry.turn_index + 1}. [dim]you:[/dim] {escape(entry.user)}\n"
                  f"     [dim]listener ({entry.emotion.value}, {entry.strategy.value}):[/dim] {escape(entry.reply)}")


def chat_turn(empathizer: Empathizer, turn: TurnInput | None, session_id: str, out_dir: Path, *, media: bool,
              out: Console) -> TurnResult:
    """Answer one message live (None: finish the interrupted one); write its files to ``out_dir/turn-N``."""
    from empathygraph.cli.display import show_live

    turn_dir = out_dir / f"turn-{len(empathizer.history(session_id)) + 1}"
    result = show_live(out, empathizer.events(turn, session_id=session_id, out_dir=turn_dir if media else None))
    result.write(turn_dir)
    drop_live_sentences(turn_dir)
    result.write(out_dir, append_trace=True)  # the whole conversation in one trace
    out.print(f"[bold magenta]listener:[/bold magenta] {escape(result.reply)}")
    out.print(summary(result), highlight=False)
    if result.media:
        out.print("[dim]media:[/dim] " + ", ".join(escape(path) for path in result.media.values()), highlight=False)
    return result


def describe(turn: TurnInput) -> str:
    """A message in one short line: its words (cut) and attachments."""
    parts = []
    if turn.text and turn.text.strip():
        words = " ".join(turn.text.split())
        parts.append(f'"{words[:80]}…"' if len(words) > 80 else f'"{words}"')
    parts += [f"{kind}: {getattr(turn, kind).name}" for kind in ATTACHMENTS if getattr(turn, kind)]
    return ", ".join(parts)


def offer_resume(empathizer: Empathizer, session_id: str, out: Console) -> bool:
    """Ask whether to finish the session's interrupted message; True when there is one and the answer is yes."""
    pending = empathizer.interrupted(session_id)
    if pending is None:
        return False
    out.print(f"[yellow]your last message was not answered[/yellow] (the listener stopped before replying): "
              f"{escape(describe(pending))}")
    try:
        answer = out.input("finish answering it now? [Y/n] ").strip().lower()
    except EOFError:
        return False
    return answer in ("", "y", "yes")


def chat(
    config: ConfigOption = None,
    session: SessionOption = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="folder for replies, media, trace (default: chats/<session>)")] = None,
    media: Annotated[bool, typer.Option("--media/--no-media", help="render speech and avatar video per turn")] = True,
    overrides: SetOption = None,
) -> None:
    """Talk with the listener turn by turn; attach audio, images or video; resume with --session."""
    session_id = session or f"chat-{datetime.now():%Y%m%d-%H%M%S}"
    try:
        cfg = run_config(config, overrides)
        out_dir = out or inside(Path("chats"), safe_name(session_id, "chat"))
        empathizer = Empathizer(cfg)
        earlier = len(empathizer.history(session_id))
        state = f"resuming, {earlier} earlier turn{'s' * (earlier != 1)}" if earlier else "new"
        console.print(f"[bold]chat[/bold] · session [cyan]{session_id}[/cyan] ({state}) · writes to {out_dir}")
        console.print(f"[dim]{HELP}[/dim]")
        if offer_resume(empathizer, session_id, console):
            try:
                chat_turn(empathizer, None, session_id, out_dir, media=media, out=console)
            except EmpathyGraphError as exc:
                console.print(f"[bold red]error:[/bold red] {escape(str(exc))}", highlight=False)
        composer = Composer()
        while True:
            try:
                line = console.input("[bold]you:[/bold] ").strip()
            except EOFError:  # end of piped input, or Ctrl-D
                console.print()
                break
            command, _, argument = line.partition(" ") if line.startswith("/") else ("", "", line)
            try:
                if command in ("/quit", "/exit"):
                    break
                if command == "/help":
                    console.print(f"[dim]{HELP}[/dim]")
                elif command == "/history":
                    _history(empathizer, session_id, console)
                elif command == "/resume":
                    chat_turn(empathizer, None, session_id, out_dir, media=media, out=console)
                elif command.removeprefix("/") in ATTACHMENTS:
                    console.print(composer.attach(command.removeprefix("/"), argument.strip()))
                elif command and command != "/send":
                    console.print(f"[yellow]unknown command {escape(command)}[/yellow] · {HELP}")
                elif argument or composer.attachments:
                    chat_turn(empathizer, composer.take(argument), session_id, out_dir, media=media, out=console)
            except EmpathyGraphError as exc:  # one bad message must not end the conversation
                console.print(f"[bold red]error:[/bold red] {escape(str(exc))}", highlight=False)
                if empathizer.interrupted(session_id) is not None:
                    console.print("[dim]/resume tries that message again from where it stopped[/dim]")
        console.print(f"[dim]session {session_id} saved; continue with: empathygraph chat --session {session_id}[/dim]")
    except EmpathyGraphError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail(f"interrupted; finished turns are saved in session {session_id}")
