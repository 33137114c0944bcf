"""What the response agent is asked: the strategy's intent, and listener replies to similar messages."""

from __future__ import annotations

from empathygraph.agents.response import STRATEGY_GUIDE
from empathygraph.tools.emotion_examples import LabelledExample
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import make_empathizer, scripted


class BankToolBox(ToolBox):
    """A toolbox whose reply bank answers every message with the same two examples."""

    def reply_examples(self, text: str) -> list[LabelledExample]:
        return [LabelledExample("Our old cat died today.", "Oh no, how old was she?"),
                LabelledExample("My hamster passed away.", "That's so sad. Had you had him long?")]


def test_listener_replies_to_similar_messages_come_before_the_task():
    model = scripted()
    make_empathizer(model, toolbox=BankToolBox()).respond("My dog died.")
    prompt = model.calls_for("ResponseDraft")[0].prompt
    assert '- "Our old cat died today." -> "Oh no, how old was she?"' in prompt
    assert prompt.index("How caring listeners answered") < prompt.index("Now your reply.") < prompt.index('{"reply"')


def test_without_a_bank_the_task_is_the_strategys_intent_alone():
    model = scripted()
    result = make_empathizer(model).respond("My dog died.")  # unit tests run with text emotion off: no bank
    prompt = model.calls_for("ResponseDraft")[0].prompt
    assert "How caring listeners answered" not in prompt
    assert STRATEGY_GUIDE[result.empathy.strategy] in prompt


def test_no_strategy_asks_for_a_stock_move():
    # "Acknowledge" and "name the feeling" became "I understand ..." and "you feel <label>" (issue 15).
    for guide in STRATEGY_GUIDE.values():
        assert "cknowledge" not in guide and "Name the feeling" not in guide
