"""How many replies endorse harm, blame the person or mock them, by the phrasings of ``harm_phrasing``."""

from __future__ import annotations

from collections.abc import Sequence

from empathygraph.harm_phrasing import PATTERNS, screen_reply


def harm_figures(replies: Sequence[str]) -> dict:
    """How many replies the screen flags, by kind, with the first few flagged replies to read."""
    flags = [(r, screen_reply(r)) for r in replies if r]
    flagged = [(r, f) for r, f in flags if f.flagged]
    return {
        "n": len(flags),
        "flagged": len(flagged),
        **{kind: sum(kind in f.kinds for _, f in flags) for kind in PATTERNS},
        "examples": [{"reply": r, "matched": list(f.matched)} for r, f in flagged[:5]],
    }
