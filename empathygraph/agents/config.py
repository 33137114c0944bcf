"""Settings of the agents (the ``agents`` section of a run configuration)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AgentsConfig(BaseModel):
    """How the agents reason."""

    model_config = ConfigDict(extra="forbid")

    reflection_rounds: int = Field(default=1, ge=0, le=5, description="most times reflection may send a reply back")
    reflection_llm: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="ask the LLM critic as well as the rule checks; auto: only on a server backbone "
        "(on the embedded CPU model it costs ~2 s a turn and a ~6 s rewrite when it objects)",
    )
    repair_attempts: int = Field(default=1, ge=0, le=3, description="re-asks after an invalid output")
    perception_llm: Literal["auto", "always", "never"] = Field(
        default="auto", description="auto: ask the LLM to fuse cues only when a turn has several modalities"
    )
    emotion_label: Literal["fused", "auto", "classifier", "llm"] = Field(
        default="fused",
        description="the text classifier decides when confident; below that, fused: its top labels are "
        "weighed by the LLM's likelihood of each (needs a backbone that scores, e.g. the embedded one; "
        "else as auto), auto: the LLM names the emotion; classifier: always the classifier; llm: always the LLM",
    )
    classifier_min_confidence: float = Field(default=0.25, ge=0.0, le=1.0)
    fusion_top_k: int = Field(
        default=3, ge=2, le=32,
        description="classifier labels the fusion weighs (at most perception.text_emotion_top_k, which it is given)",
    )
    fusion_llm_weight: float = Field(
        default=0.3, ge=0.0, description="weight of the LLM's log-likelihood (scripts/tune_emotion_policy.py)"
    )
    emotion_choices: int = Field(
        default=0, ge=0, le=32,
        description="when the LLM names the emotion, it chooses among the classifier's top N (0: all 32)",
    )
    cause_quote: Literal["free", "clause"] = Field(
        default="clause",
        description="clause: decoding is constrained to one of the message's clauses (never a misquote, and drafted "
        "once its first words are unique: ~0.7 s sooner a turn on 2 cores); free: the LLM copies words of the "
        "message and a misquote is re-asked",
    )
    strategy_label: Literal["auto", "prior", "llm"] = Field(
        default="prior",
        description="prior: the trained ESConv strategy prior decides (measured best on ESConv valid); "
        "auto: the prior when confident, else the LLM among its likeliest; llm: the LLM alone",
    )
    prior_min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    goal_llm: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="when the prior chose the strategy, ask the LLM for the goal to response; auto: only on a "
        "server backbone (on the embedded CPU model the call cost ~2-3 s a turn and its goals, such as \"help them "
        "find a solution\", pulled a Question reply toward advice); else the strategy's own goal is used",
    )
    reply_temperature: float | None = Field(
        default=0.7, ge=0.0, le=2.0,
        description="sampling temperature of the reply (None: the backbone's); the analysis steps keep the backbone's. "
        "Near-greedy, the 1.5B model opened most replies alike and wrote a rewrite identical to the reply it fixed",
    )
    reply_max_words: int = Field(default=30, ge=5, description="asked of the LLM; 1.5x this is refused")
    history_turns: int = Field(default=4, ge=0, description="earlier turns shown to the agents")


def llm_step_wanted(policy: Literal["auto", "always", "never"], backbone_kind: str) -> bool:
    """Whether an optional LLM step runs: ``auto`` asks it only of a server backbone, where it is cheap."""
    return policy == "always" or (policy == "auto" and backbone_kind != "embedded")
