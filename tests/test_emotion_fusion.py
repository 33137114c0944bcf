"""Fusing the text classifier's ranking with the LLM's likelihood of each label."""

from __future__ import annotations

import math

from empathygraph import Empathizer
from empathygraph.agents.emotion_fusion import fuse
from empathygraph.backbones import wrap_chat_model
from empathygraph.backbones.base import ContinuationScores
from empathygraph.schemas import LabelScore, TextEmotionCue
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import scripted, test_config

UNSURE = TextEmotionCue(top=[LabelScore(label="sad", score=0.20), LabelScore(label="lonely", score=0.15),
                             LabelScore(label="devastated", score=0.10)], model="fixed")


class UnsureWords(ToolBox):
    def text_emotion(self, text: str, llm_state=None) -> TextEmotionCue:
        return UNSURE


class LabelScorer:
    """Scores the options as a model that finds 'lonely' likeliest would."""

    def __init__(self) -> None:
        self.calls: list[tuple[list, list[str]]] = []

    def __call__(self, messages, options):
        self.calls.append((messages, options))
        return ContinuationScores(logprobs=[math.log(0.7) if o == "lonely" else math.log(0.1) for o in options],
                                  prompt_tokens=42)


def test_fuse_weighs_classifier_against_llm():
    llm = [math.log(0.1), math.log(0.8), math.log(0.1)]
    assert fuse(UNSURE, llm, weight=0.0)[0].label == "sad"  # the classifier alone
    assert fuse(UNSURE, llm, weight=1.0)[0].label == "lonely"  # 0.15 * 0.8 beats 0.20 * 0.1
    ranked = fuse(UNSURE, llm, weight=1.0)
    assert [c.label for c in ranked] == ["lonely", "sad", "devastated"]
    assert ranked[0].score == round(math.log(0.15) + math.log(0.8), 3)


def fused_empathizer(model, scorer):
    config = test_config(agents={"emotion_label": "fused", "fusion_llm_weight": 1.0}, perception={"text_emotion": True})
    backbone = wrap_chat_model(model)
    backbone.scorer = scorer
    return Empathizer(config, backbone=backbone, toolbox=UnsureWords(config.perception))


def test_unsure_classifier_label_is_fused_and_traced():
    model, scorer = scripted(), LabelScorer()
    result = fused_empathizer(model, scorer).respond("My dog died yesterday.")
    assert result.emotion.emotion.value == "lonely" and result.emotion.label_source == "fused"
    (messages, options), = scorer.calls
    assert options == ["sad", "lonely", "devastated"] and "one word from: sad, lonely, devastated" in str(messages[-1].content)
    fusion = next(s for s in result.steps if s.step == "emotion_fusion")
    assert fusion.output["emotion"] == "lonely" and fusion.tokens.prompt == 42
    assert [c["label"] for c in fusion.output["candidates"]] == ["lonely", "sad", "devastated"]
    # The cause step is told the label and extends the fusion prompt (one growing chat).
    assert model.calls_for("LabelledCauseDraft") == []
    cause_call = model.calls_for("CauseDraft")[0]
    assert [str(m.content) for m in cause_call.messages[: len(messages)]] == [str(m.content) for m in messages]
    assert str(cause_call.messages[len(messages)].content) == "lonely"


def test_backbone_that_cannot_score_lets_the_llm_name_the_emotion():
    model = scripted()
    result = fused_empathizer(model, None).respond("My dog died yesterday.")
    assert result.emotion.label_source == "llm" and len(model.calls_for("LabelledCauseDraft")) == 1
    cause = next(s for s in result.steps if s.step == "emotion_cause")
    assert any("cannot score choices" in note for note in cause.notes)


def test_reasoning_tree_shows_what_the_fusion_weighed():
    from rich.console import Console

    from empathygraph.cli.display import reasoning_tree

    result = fused_empathizer(scripted(), LabelScorer()).respond("My dog died yesterday.")
    console = Console(record=True, width=200)
    console.print(reasoning_tree(result))
    text = console.export_text()
    assert "lonely (sadness, fused)" in text
    assert "weighed: lonely (classifier 0.15, LLM 0.70), sad (classifier 0.20, LLM 0.10)" in text


def test_fusion_cannot_ask_for_more_labels_than_the_classifier_passes_on():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="fusion_top_k"):
        test_config(agents={"emotion_label": "fused", "fusion_top_k": 8})
    test_config(agents={"emotion_label": "fused", "fusion_top_k": 8}, perception={"text_emotion_top_k": 8})


def test_fusion_shows_the_labelled_messages_most_like_theirs():
    from empathygraph.tools.emotion_examples import LabelledExample

    class WithExamples(UnsureWords):
        def emotion_examples(self, text: str) -> list[LabelledExample]:
            return [LabelledExample("Nobody called me all week.", "lonely"), LabelledExample("x" * 400, "sad")]

    model, scorer = scripted(), LabelScorer()
    config = test_config(agents={"emotion_label": "fused"}, perception={"text_emotion": True})
    backbone = wrap_chat_model(model)
    backbone.scorer = scorer
    result = Empathizer(config, backbone=backbone, toolbox=WithExamples(config.perception)).respond("I'm alone.")
    (messages, _), = scorer.calls
    task = str(messages[-1].content)
    assert '- "Nobody called me all week.": lonely' in task and f'- "{"x" * 160}": sad' in task
    assert task.index("lonely") < task.index("one word from")
    fusion = next(s for s in result.steps if s.step == "emotion_fusion")
    assert fusion.input["examples"][0] == ["Nobody called me all week.", "lonely"]


class SureWords(ToolBox):
    def text_emotion(self, text: str, llm_state=None) -> TextEmotionCue:
        return TextEmotionCue(top=[LabelScore(label="sad", score=0.80), LabelScore(label="lonely", score=0.10)],
                              model="fixed")


def test_the_classifier_s_scores_are_shown_only_when_the_llm_names_the_emotion():
    config = test_config(perception={"text_emotion": True})
    model = scripted()
    Empathizer(config, backbone=wrap_chat_model(model), toolbox=SureWords(config.perception)).respond("My dog died.")
    prompt = model.calls_for("CauseDraft")[0].prompt
    assert "They seem to feel sad" in prompt and "their words suggest" not in prompt  # read faster, told the same
    model = scripted()
    fused_empathizer(model, None).respond("My dog died yesterday.")
    assert "their words suggest: sad 0.20, lonely 0.15, devastated 0.10" in model.calls_for("LabelledCauseDraft")[0].prompt
