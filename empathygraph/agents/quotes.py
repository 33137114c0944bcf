"""Find a quoted span in the user's words, tolerating small differences in the copy."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_WORD = re.compile(r"\w+(?:'\w+)?")


def find_quote(quote: str, source: str, min_ratio: float = 0.8) -> str | None:
    """The span of ``source`` that ``quote`` copies (exact words of source), or None.

    Matching is over lower-cased word tokens, so punctuation, case and a word or
    two changed in the copy do not matter; the returned span is the original text.
    """
    wanted = [w.lower() for w in _WORD.findall(quote)]
    tokens = list(_WORD.finditer(source))
    if not wanted or not tokens:
        return None
    words = [t.group(0).lower() for t in tokens]
    best_ratio, best_span = 0.0, None
    for size in {len(wanted) - 1, len(wanted), len(wanted) + 1} - {0}:
        for start in range(max(len(words) - size, 0) + 1):
            window = words[start : start + size]
            ratio = SequenceMatcher(a=wanted, b=window, autojunk=False).ratio()
            if ratio > best_ratio:
                best_ratio = ratio
                best_span = (tokens[start].start(), tokens[min(start + size, len(tokens)) - 1].end())
    if best_span is None or best_ratio < min_ratio:
        return None
    return source[best_span[0] : best_span[1]]


def nearest_sentence(quote: str, source: str) -> str:
    """The sentence of ``source`` sharing most words with ``quote`` (the fallback cause)."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", source) if s.strip()] or [source.strip()]
    wanted = {w.lower() for w in _WORD.findall(quote)}
    return max(sentences, key=lambda s: len(wanted & {w.lower() for w in _WORD.findall(s)}))


_CLAUSE_BREAK = re.compile(r"(?<=[.!?;,:])\s+|(?<=[.!?][\"”’)])\s+|\s+(?=(?:and|but|because|when|since|while)\b)", re.IGNORECASE)
# Characters a clause leaves out: the clauses become a grammar's string choices, and llama-cpp-python's
# JSON-schema converter spells a straight quote mark or backslash inside one as a grammar llama.cpp cannot
# parse (a message quoting someone, 'It was "no, daddy, mine."', failed the whole turn); control characters too.
_UNQUOTABLE = re.compile(r'\s*["\\\x00-\x1f]+\s*')


def clauses(source: str, max_words: int = 14) -> tuple[str, ...]:
    """The clauses of ``source`` (split at punctuation and conjunctions), as quotable choices.

    A clause longer than ``max_words`` is cut into pieces of at most that many words;
    each clause keeps the user's exact words (straight quote marks, backslashes and control characters
    left out, see ``_UNQUOTABLE``), so any choice is a true quote.
    """
    pieces = []
    for part in _CLAUSE_BREAK.split(source.strip()):
        part = part.strip(" \t\n,;:")
        words = list(_WORD.finditer(part))
        for start in range(0, len(words), max_words):
            chunk = words[start : start + max_words]
            if chunk:
                pieces.append(_UNQUOTABLE.sub(" ", part[chunk[0].start() : chunk[-1].end()]))
    return tuple(dict.fromkeys(pieces))

