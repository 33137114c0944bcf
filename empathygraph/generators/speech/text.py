"""Prepare reply text for a voice: clean it and cut it into speakable sentences."""

from __future__ import annotations

import re
import unicodedata

from empathygraph.generators.base import GeneratorError

_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+")
CLAUSE_ENDS = (",", ";", ":", "—", "–")  # marks a clause ends with (not a sentence)
_CLAUSE_BREAK = re.compile(rf"(?<=[{''.join(CLAUSE_ENDS)}])\s+")
# Symbols a voice says badly or not at all, and what to say instead.
_SPOKEN = {"&": " and ", "%": " percent", "@": " at ", "+": " plus ", "=": " equals ", "#": " number "}


def clean(text: str) -> str:
    """Return ``text`` with unspeakable characters removed or spelled out.

    Emoji, control characters and other symbols a TTS voice cannot say are dropped;
    typographic quotes and dashes become plain ones; whitespace is collapsed.
    """
    text = unicodedata.normalize("NFKC", text)
    for symbol, words in _SPOKEN.items():
        text = text.replace(symbol, words)
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category[0] in "LNZ" or char in ".,;:!?'\"-()…—–":
            kept.append(char)
        elif category[0] == "P" or category in ("Cc", "Cf"):
            kept.append(" ")
        # So/Sk/Sm/Co/Cn (emoji, arrows, private use) are not speakable: drop them.
    text = "".join(kept).replace("“", '"').replace("”", '"').replace("’", "'")
    return re.sub(r"\s+", " ", text).strip()


def sentences(text: str, max_chars: int = 250, max_text_chars: int = 20000, first_clause_words: int = 0) -> list[str]:
    """Split cleaned ``text`` into sentences no longer than ``max_chars``; with ``first_clause_words``,
    the first sentence is cut at its first clause break after that many words.

    Raises:
        GeneratorError: the text is empty after cleaning, or longer than ``max_text_chars``.
    """
    if len(text) > max_text_chars:
        raise GeneratorError(f"reply text is {len(text)} characters; the limit is {max_text_chars}")
    cleaned = clean(text)
    if not re.search(r"\w", cleaned):
        raise GeneratorError("reply text is empty or has nothing a voice can say")
    pieces: list[str] = []
    for sentence in _SENTENCE_END.split(cleaned):
        pieces.extend(_split_long(sentence.strip(), max_chars))
    pieces = [p for p in pieces if re.search(r"\w", p)]
    if first_clause_words and pieces and (cut := _first_clause_end(pieces[0], first_clause_words)):
        pieces[:1] = [pieces[0][:cut].rstrip(), pieces[0][cut:].strip()]
    return pieces


def complete_sentences(text: str, max_chars: int = 250, first_clause_words: int = 0) -> list[str]:
    """The sentences of a reply still being written that are complete (more text follows them).

    They are the same sentences ``sentences`` finds in the whole reply, so speech of the
    first ones can start before the rest exists (with ``first_clause_words``, the first
    sentence's first clause as soon as it is written).
    """
    ends = list(_SENTENCE_END.finditer(text))
    if not ends:
        cut = _first_clause_end(clean(text), first_clause_words) if first_clause_words else None
        return [clean(text)[:cut].rstrip()] if cut else []
    try:
        return sentences(text[: ends[-1].end()], max_chars, first_clause_words=first_clause_words)
    except GeneratorError:  # nothing speakable yet
        return []


def _first_clause_end(sentence: str, min_words: int) -> int | None:
    """Where the first clause of ``sentence`` with at least ``min_words`` words ends (after its comma
    and the space that follows), if more of the sentence follows it."""
    for match in _CLAUSE_BREAK.finditer(sentence):
        if len(sentence[: match.start()].split()) >= min_words and sentence[match.end():].strip():
            return match.end()
    return None


def _split_long(sentence: str, max_chars: int) -> list[str]:
    """Cut an over-long sentence at clause breaks, then at word boundaries."""
    if len(sentence) <= max_chars:
        return [sentence]
    parts: list[str] = []
    current = ""
    for clause in _CLAUSE_BREAK.split(sentence):
        for word in clause.split(" "):
            if current and len(current) + 1 + len(word) > max_chars:
                parts.append(current)
                current = ""
            current = f"{current} {word}".strip()
        if len(current) >= max_chars // 2:
            parts.append(current)
            current = ""
    if current:
        parts.append(current)
    return parts
