"""The prompt every agent shares, so llama.cpp can reuse its KV cache.

A turn's reasoning is one growing chat: one system message, then the ``context``
(the conversation and this turn's cues) with the first agent's task; each later
agent appends its own short task after the earlier agents' answers, exactly as
they were generated. Every prompt therefore extends the previous prompt and its
answer, which are still in llama.cpp's KV cache, and the model reads only the new
task. The chat is its own value in the state (``state["chat"]``, a list of
``Exchange``): an agent that asks the LLM returns its exchange there (``exchange``),
and an inserted custom agent joins the chat the same way. The trace records each
prompt, but the chat is never rebuilt from it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from empathygraph.schemas import Cues
from empathygraph.state import Exchange, HistoryEntry, MergState
from empathygraph.tools.injection import defuse

LISTENER = (
    "You are the mind of a warm, careful listener talking with a person who shares how they feel. "
    "Your thinking is split into small steps. At each step answer only with the JSON asked for, "
    "briefly, in plain English, and base it on what the person actually said."
)
# How the reply should read, shown once in the system prompt: it is the same for every turn, so
# llama.cpp keeps it in its KV cache and a turn pays nothing for it after the first. Examples
# teach a small model a register far better than rules do; these are the project's own writing.
REPLY_RULES = (
    "When you write the reply, sound like a caring friend who listened: answer the exact thing they said, "
    "in your own words, without repeating their sentences back to them, and vary how you begin. Do not open with "
    '"I understand", "I see" or "I hear", and do not tell them their feeling with a label ("you feel grateful"). '
    'Ask at most one question, about something they told you, never "what do you think about". Take jokes and '
    "exaggeration as jokes, never literally. Never agree with hurting anyone, themselves included, and never blame "
    "or tease them. Replies like these:"
)
REPLY_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Found my grandma's recipe cards today. Her handwriting is all over the margins.",
     "Her notes in the margins, that's like hearing her voice again. Which card did you stop at first?"),
    ("I got the flat! After fourteen viewings!",
     "Fourteen viewings and you finally have it, that's brilliant! When do you get the keys?"),
    ("We said goodbye to our dog Milo at the vet yesterday.",
     "That's such a hard goodbye, and you stayed with him through it. How is the house without him?"),
    ("My flatmate keeps eating my lunch. I swear I'll put hot sauce in it next time.",
     "Losing your lunch day after day would wear anyone down! Have you been able to say anything to them?"),
    ("I messed up the presentation I practised for a week.",
     "A whole week of practice makes a slip sting even more. What happened in the room?"),
    ("I finally told my boss I need fewer hours.",
     "That took nerve, after months of quietly staying late. Good on you for asking for what you need."),
)
# What each example is about: a reply that brings one of these up when the person did not (greeted with
# "hello", the 1.5B model asked "What's happening with Milo?") answers the examples, not them.
REPLY_EXAMPLE_TOPICS: frozenset[str] = frozenset({
    "grandma", "recipe", "card", "handwriting", "margin", "flat", "viewing", "milo", "flatmate", "sauce", "lunch",
    "presentation",
})  # the examples' own things: "boss" or "vet" are fair questions to many messages (the ED listeners bring up a
# boss unmentioned in 65 of 45,990 turns, a vet in 23, lunch in 15, a presentation in 2; the embedded model asked
# "How about we talk about your lunch?" and after "the presentation you practised for a week" when neither was theirs)
REPLY_STYLE = "\n".join(["", REPLY_RULES, *(f'Person: "{said}"\nListener: "{reply}"' for said, reply in REPLY_EXAMPLES)])
SYSTEM_PROMPT = LISTENER + REPLY_STYLE


def _cue_lines(cues: Cues, *, text_scores: bool = True) -> list[str]:
    lines = []
    text, voice, face = cues.text_emotion, cues.voice, cues.face
    if text_scores and text is not None and text.top:
        ranked = ", ".join(f"{item.label} {item.score:.2f}" for item in text.top[:3])
        lines.append(f"- their words suggest: {ranked}")
    if voice is not None and voice.description:
        lines.append(f"- their voice: {voice.description}")
    if face is not None and face.description:
        lines.append(f"- their face: {face.description}")
    return lines


def quoted(words: str) -> str:
    """The person's words as one JSON string: a quote mark or line break in them cannot end the
    quote or start a line of instructions, and chat-template tags are broken up (``tools.injection``).
    Plain words read exactly as ``"their words"``."""
    return json.dumps(defuse(words), ensure_ascii=False)


def one_line(text: str) -> str:
    """``text`` on one line, its chat-template tags broken up (an earlier turn in the context)."""
    return " ".join(defuse(text).split())


def words_block(words: str, history: Sequence[HistoryEntry] = ()) -> str:
    """The conversation so far and this turn's words: how every turn's first prompt begins."""
    lines = []
    if history:
        lines.append("Earlier in the conversation:")
        for entry in history:
            lines.append(f"Person: {one_line(entry.user)}")
            lines.append(f"Listener: {one_line(entry.reply_in_prompts)}")
        lines.append("")
    lines.append(f"The person now says: {quoted(words)}")
    return "\n".join(lines)


def words_messages(words: str, history: Sequence[HistoryEntry] = ()) -> tuple[list[BaseMessage], str]:
    """The start of a turn's first prompt, up to the end of the person's words, and those words as
    quoted there: what a probe of the backbone's hidden states reads (the first step then finds
    it in the KV cache)."""
    return ([SystemMessage(content=SYSTEM_PROMPT), HumanMessage(content=words_block(words, history))],
            quoted(words))


def recent_history_of(history: Sequence[HistoryEntry], history_turns: int) -> list[HistoryEntry]:
    """The last ``history_turns`` turns of the session the prompts show (none when 0)."""
    return list(history[-history_turns:]) if history_turns else []


def context_block(state: MergState, history_turns: int, *, text_scores: bool = True) -> str:
    """The conversation so far and this turn's words and cues (without the text classifier's scores
    unless ``text_scores``)."""
    lines = [words_block(state["cues"].words, recent_history_of(state.get("history", []), history_turns))]
    cue_lines = _cue_lines(state["cues"], text_scores=text_scores)
    if cue_lines:
        lines.append("Cues:")
        lines.extend(cue_lines)
    return "\n".join(lines)


def build_messages(
    state: MergState, task: str, *, history_turns: int, earlier: Sequence[Exchange] = (), text_scores: bool = True
) -> list[BaseMessage]:
    """The chat an agent sends: system prompt, context, earlier steps' tasks and answers, its task.

    Args:
        earlier: exchanges the calling node made itself before this call (not in the state yet).
        text_scores: whether the context (written only by a turn's first prompt) lists the text
            classifier's top emotions; a first step that already names the emotion leaves them out.
    """
    step = f"Step: {task}"
    messages: list[BaseMessage] = [SystemMessage(content=SYSTEM_PROMPT)]
    chat = [*state["chat"], *earlier]
    if not chat:
        context = context_block(state, history_turns, text_scores=text_scores)
        return [*messages, HumanMessage(content=f"{context}\n\n{step}")]
    for said in chat:
        messages += [HumanMessage(content=said.asked), AIMessage(content=said.answer)]
    return [*messages, HumanMessage(content=step)]


def exchange(step: str, messages: Sequence[BaseMessage] | None, answer: str | None) -> list[Exchange]:
    """A step's place in the shared chat: the message it was asked last and its answer.

    Empty when the step asked nothing or has no usable answer, so the next agent's
    prompt leaves it out.
    """
    if not messages or not answer:
        return []
    return [Exchange(step=step, asked=str(messages[-1].content), answer=answer)]


def as_prompt_record(messages: list[BaseMessage]) -> list[dict[str, str]]:
    """Messages as plain dicts for the trace."""
    return [{"role": m.type, "content": str(m.content)} for m in messages]
