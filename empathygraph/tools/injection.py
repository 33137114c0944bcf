"""Spot and defuse prompt injection in a person's words: text that tries to instruct the listener.

The words always reach the agents as the person's words, never as instructions: ``defuse``
breaks chat-template control tags (``<|im_start|>``, ``[INST]``, ``</s>`` ...) that a model's
tokenizer would otherwise read as real turn boundaries, and the prompt quotes the words as
one JSON string, so no line break or quote mark in them can start a line of their own.
``find_injection`` names what an attempt looked like, for the trace; nothing is refused or
removed on its account (a person may quote such text for a good reason).
"""

from __future__ import annotations

import re

# Tags that chat templates turn into special tokens (ChatML, Llama 2/3, Gemma, Mistral, Phi).
_TAGS = re.compile(
    r"<\|[^<>|\s]{1,40}\|>|\[/?INST\]|<</?SYS>>|</?s>|<(?:start|end)_of_turn>|<\|?(?:begin|end)_of_text\|?>",
    re.IGNORECASE,
)
_SIGNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("asks to ignore instructions", re.compile(
        r"\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:instructions?|prompts?|rules|guidelines|above)\b",
        re.IGNORECASE)),
    ("gives the listener a new role", re.compile(
        r"\b(?:you are now|from now on you|new instructions|system prompt|act as|pretend to be)\b", re.IGNORECASE)),
    ("chat-template tags", _TAGS),
    ("a fake role line", re.compile(r"(?:^|\n)\s*(?:#+\s*)?(?:system|assistant|listener|developer)\s*:", re.IGNORECASE)),
    ("a JSON answer", re.compile(
        r"\{\s*\"(?:reply|emotion|strategy|verdict|quote|goal|acknowledgment|resources|intensity)\"\s*:")),
    ("a helpline or number to give", re.compile(
        r"\b(?:hotline|helpline|crisis line|resources?)\b[^.!?\n]{0,60}\d{3}|\bcall\b[^.!?\n]{0,20}\d{3}[-\s.]?\d{3,4}",
        re.IGNORECASE)),
)


def defuse(text: str) -> str:
    """``text`` with every chat-template tag broken up (``<|im_start|>`` -> ``< |im_start| >``)."""
    return _TAGS.sub(lambda found: f"{found[0][0]} {found[0][1:-1]} {found[0][-1]}", text)


def find_injection(text: str) -> list[str]:
    """What in ``text`` looks like an attempt to instruct the listener (empty when nothing does)."""
    return [name for name, pattern in _SIGNS if pattern.search(text)]
