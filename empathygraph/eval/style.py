"""Style figures of a set of replies: the tics a judge of listener replies looks for.

Every function reads plain strings; ``style_figures`` takes (context, reply, label) items,
where ``label`` is the emotion the system predicted for the person (or the dataset's label
for human references; None when there is none). The figures:

- ``top_opening``: the most common first three words, and the share of replies opening so.
- ``understand_opening``: share of replies opening with "I understand", "I see" or "I hear"
  (after an interjection such as "Oh," and with "can", "do", "totally" ... allowed between).
- ``label_parroting``: share of replies that name the label as the person's feeling
  ("you feel grateful", "you're feeling so anxious", "are you excited", "it's normal to feel
  lonely"); over the items that have a label. ``names_a_label``: the same with any of the 32
  ED labels, whatever was predicted. A label said about someone else ("I'm so proud of you")
  or negated ("you shouldn't feel guilty") does not count.
- ``what_do_you_think_about``: share asking "what do you think about"; ``generic_question``
  adds the other stock questions ("how does that make you feel", "can you tell me more?" ...).
- ``specificity``: per item, the share of the person's content words (stop words removed,
  Porter-stemmed) that the reply reuses; the mean over items.
- ``mean_words``: reply length in words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from nltk.stem import PorterStemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from empathygraph.phrasing import (
    asks_generic_question,
    asks_what_do_you_think_about,
    names_a_label,
    opens_with_understanding,
    parrots_label,
    words,
)

StyleItem = tuple[str, str, str | None]  # (person's words, reply, emotion label)

def opening(reply: str, n: int = 3) -> str:
    """The reply's first ``n`` words, lower case, punctuation dropped."""
    return " ".join(words(reply)[:n])


def top_opening(replies: Sequence[str], n: int = 3) -> tuple[str, float]:
    """The most common ``n``-word opening and the share of replies that open with it."""
    counts = Counter(opening(r, n) for r in replies if words(r))
    if not counts:
        return "", 0.0
    text, count = counts.most_common(1)[0]
    return text, count / len(replies)


_STEM = PorterStemmer().stem


def content_stems(text: str) -> set[str]:
    """Stems of the words that carry content: stop words and words under 3 letters removed."""
    return {_STEM(w.split("'")[0]) for w in words(text)
            if w.split("'")[0] not in ENGLISH_STOP_WORDS and len(w) >= 3 and not w.isdigit()}


def specificity(context: str, reply: str) -> float | None:
    """Share of the person's content words the reply reuses (None when the person's words have none)."""
    person = content_stems(context)
    return len(person & content_stems(reply)) / len(person) if person else None


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def style_figures(items: Sequence[StyleItem]) -> dict:
    """All the style figures of (context, reply, label) items; replies that are empty are left out."""
    items = [(c, r, label) for c, r, label in items if r and r.strip()]
    if not items:
        return {"n": 0}
    replies = [r for _, r, _ in items]
    top, top_share = top_opening(replies)
    labelled = [(r, label) for _, r, label in items if label]
    spec = [s for c, r, _ in items if (s := specificity(c, r)) is not None]
    lengths = [len(words(r)) for r in replies]
    return {
        "n": len(items),
        "top_opening": top,
        "top_opening_share": round(top_share, 4),
        "understand_opening": _share([opens_with_understanding(r) for r in replies]),
        "label_parroting": _share([parrots_label(r, label) for r, label in labelled]),
        "n_labelled": len(labelled),
        "names_a_label": _share([names_a_label(r) for r in replies]),
        "what_do_you_think_about": _share([asks_what_do_you_think_about(r) for r in replies]),
        "generic_question": _share([asks_generic_question(r) for r in replies]),
        "specificity": round(sum(spec) / len(spec), 4) if spec else None,
        "mean_words": round(sum(lengths) / len(lengths), 2),
    }
