"""The crisis screen catches common ways people disclose risk, and leaves ordinary sadness alone."""

from __future__ import annotations

import pytest

from empathygraph.schemas import RiskCategory
from empathygraph.tools.safety import screen


@pytest.mark.parametrize(
    "text",
    [
        "Sometimes I think about taking my own life.",
        "honestly i just want to kms",
        "I've been thinking of ways to unalive myself",
        "I don't see the point in living anymore.",
        "What's the point of living like this?",
        "I wish I could go to sleep and never wake up.",
        "I wrote a goodbye letter to my sister last night.",
        "I no longer want to be here.",
        "I want to end my life.",
    ],
)
def test_self_harm_disclosures_are_flagged(text: str) -> None:
    result = screen(text)
    assert result.category is RiskCategory.SELF_HARM, text
    assert result.matched


@pytest.mark.parametrize(
    "text",
    [
        "I failed my exam and I feel terrible about it.",
        "My dog died and I miss him so much.",
        "This traffic is killing me, I'm so late.",
        "I wrote a letter to my grandmother.",
    ],
)
def test_ordinary_distress_is_not_flagged(text: str) -> None:
    assert not screen(text).at_risk, text
