"""A real turn on each backbone: the embedded model, llama.cpp's server and vLLM.

These run real models on the CPU, so each costs tens of seconds; they check that a
turn completes with schema-valid outputs through the real decode-time constraints.
"""

from __future__ import annotations

import httpx
import pytest

from empathygraph import Config, Empathizer
from empathygraph.schemas import EmotionAnalysis, EmpathyPlan, ResponsePlan

pytestmark = pytest.mark.integration

TEXT = "I failed my driving test for the third time today and my dad just laughed at me."


def config(**backbone) -> Config:
    return Config.model_validate({
        "backbone": backbone,
        "sessions": {"db": ":memory:"},
        "generators": {"speech": "none", "avatar": "none"},
    })


def assert_schema_valid_turn(result) -> None:
    for record, schema in ((result.emotion, EmotionAnalysis), (result.empathy, EmpathyPlan), (result.plan, ResponsePlan)):
        schema.model_validate(record.model_dump())
    assert result.plan.text.strip()
    assert result.emotion.causes and all(cause in TEXT for cause in result.emotion.causes)
    llm_steps = [s for s in result.steps if s.attempts]
    # The cause and the reply always ask the LLM; the strategy and reflection only when their rules are unsure.
    assert {"emotion_cause", "response"} <= {s.step for s in llm_steps}
    for step in llm_steps:
        assert step.prompt and step.tokens.total > 0
        assert step.tokens.completion > 0 or step.step == "emotion_fusion"  # the fusion scores labels, decodes nothing


def test_embedded_default_model_completes_a_turn():
    result = Empathizer(config()).respond(TEXT)
    assert_schema_valid_turn(result)
    assert result.backbone == "embedded:qwen2.5-coder-1.5b"
    fusion = [s for s in result.steps if s.step == "emotion_fusion"]
    if fusion:  # the classifier was unsure: the real model scored its top labels
        candidates = fusion[0].output["candidates"]
        assert len(candidates) == 3 and all(c["llm_logprob"] < 0 for c in candidates)
        assert result.emotion.label_source == "fused" and result.emotion.emotion.value == candidates[0]["label"]


def test_llama_cpp_server_completes_a_turn(llama_server):
    cfg = config(kind="openai", base_url=llama_server, model="qwen2.5-coder-1.5b",
                 structured_output="json_object", thinking=None)
    result = Empathizer(cfg).respond(TEXT)
    assert_schema_valid_turn(result)


@pytest.mark.vllm
def test_vllm_server_completes_a_turn(vllm_url):
    served = httpx.get(f"{vllm_url}/models", timeout=10).json()["data"][0]["id"]
    # The CI server runs SmolLM2-135M: the fast preset's repetition penalty keeps it out of loops.
    result = Empathizer(config(kind="openai", base_url=vllm_url, model=served, repeat_penalty=1.15)).respond(TEXT)
    assert_schema_valid_turn(result)


@pytest.mark.vllm
def test_vllm_structured_outputs_choice_constrains_a_label(vllm_url):
    """vLLM's own `structured_outputs` choice constraint, as the strategy label uses."""
    served = httpx.get(f"{vllm_url}/models", timeout=10).json()["data"][0]["id"]
    choices = ["Question", "Reflection of feelings", "Providing Suggestions"]
    response = httpx.post(f"{vllm_url}/chat/completions", timeout=120, json={
        "model": served,
        "messages": [{"role": "user", "content": "Pick a support strategy for a sad friend."}],
        "structured_outputs": {"choice": choices},
        "max_tokens": 20,
    })
    response.raise_for_status()
    assert response.json()["choices"][0]["message"]["content"] in choices
