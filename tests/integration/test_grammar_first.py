"""The grammar-first sampler on a real model: output follows the grammar even when the
model's own choice is refused, and matches the stock sampler's where it is not."""

from __future__ import annotations

import json
import os
import random

import llama_cpp
import numpy as np
import pytest
from llama_cpp import Llama

from empathygraph.agents.emotion_cause import CauseDraft
from empathygraph.agents.quotes import clauses
from empathygraph.agents.structured import with_choices
from empathygraph.backbones.base import json_schema_format
from empathygraph.backbones.grammar_first import GrammarFirstLlama
from empathygraph.backbones.model_files import resolve_model_path
from empathygraph.backbones.prefix_cache import PrefixCache

pytestmark = pytest.mark.integration

SCHEMA = {
    "type": "object",
    "properties": {"emotion": {"enum": ["lonely", "afraid"]}, "reason": {"type": "string"}},
    "required": ["emotion", "reason"],
}
# The model is pushed towards an emotion the grammar forbids.
ASK = [{"role": "user", "content": 'I just won the lottery! Answer in JSON: {"emotion": "happy", "reason": "..."}'}]


@pytest.fixture(scope="module")
def model_path() -> str:
    return str(resolve_model_path("fast"))


def complete(llm: Llama) -> str:
    result = llm.create_chat_completion(messages=ASK, max_tokens=40, temperature=0.0,
                                        response_format={"type": "json_object", "schema": SCHEMA})
    return result["choices"][0]["message"]["content"]


def test_refused_tokens_are_redrawn_within_the_grammar(model_path):
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)
    answer = complete(llm)
    assert llm._sampler.refused > 0  # the full pass ran
    start = answer.index("{")
    assert json.loads(answer[start : answer.index("}", start) + 1])["emotion"] in ("lonely", "afraid")


def test_greedy_output_matches_the_stock_sampler(model_path):
    stock = complete(Llama(model_path=model_path, n_ctx=512, verbose=False))
    assert complete(GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)) == stock


def test_scoring_continuations_ranks_and_leaves_the_cache_consistent(model_path):
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)
    before = complete(llm)
    question = [{"role": "user", "content": "What is the capital of France? Answer with one word."}]
    (paris, banana, multi), read = llm.continuation_logprobs(question, ["Paris", "banana", "Buenos Aires"])
    assert paris > banana and paris > multi and multi < 0 and read > 10
    # Asked again, the prompt is reused from the KV cache: only the last prompt token is read again.
    assert llm.continuation_logprobs(question, ["Paris"]) == ([pytest.approx(paris, abs=1e-3)], 1)
    assert complete(llm) == before  # generation after scoring sees a consistent cache


def complete_in_batches(llm: GrammarFirstLlama, ask: list[dict[str, str]], schema: dict) -> tuple[dict, dict, list[int]]:
    """(the completion, its parsed JSON answer, the size of every batch the model read)."""
    batches: list[int] = []
    plain_eval = llm.eval
    llm.eval = lambda tokens: (batches.append(len(tokens)), plain_eval(tokens))[1]
    result = llm.create_chat_completion(messages=ask, max_tokens=40, temperature=0.0,
                                        response_format={"type": "json_object", "schema": schema})
    return result, json.loads(result["choices"][0]["message"]["content"]), batches


def test_lookup_drafts_are_checked_and_cut_back_to_what_was_drawn(model_path):
    from empathygraph.backbones.grammar_first import PromptLookupDraft

    sentence = "the quick brown fox jumps over the lazy dog near the old river bank"
    ask = [{"role": "user", "content": f'Copy this sentence exactly: "{sentence}". JSON: {{"copy": "..."}}'}]
    schema = {"type": "object", "properties": {"copy": {"type": "string"}}, "required": ["copy"]}
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False, lookup=PromptLookupDraft(tokens=3))
    result, answer, batches = complete_in_batches(llm, ask, schema)
    assert "quick brown fox" in answer["copy"].lower()  # SmolLM2 copies, if not word for word
    assert max(batches[1:]) == 4  # a drawn token and 3 drafted ones read together
    drawn = result["usage"]["completion_tokens"]
    assert llm.n_tokens <= result["usage"]["prompt_tokens"] + drawn  # no unchecked draft left in the cache


def test_json_drafts_read_what_the_schema_forces_in_one_batch(model_path):
    ask = [{"role": "user", "content": 'I just won the lottery! Answer in JSON: {"emotion": "...", "reason": "..."}'}]
    schema = {
        "type": "object",
        "properties": {"emotion": {"enum": ["overjoyed", "afraid"]}, "reason": {"type": "string"}},
        "required": ["emotion", "reason"],
    }
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False, json_drafts=True)
    result, answer, batches = complete_in_batches(llm, ask, schema)
    assert answer["emotion"] in ("overjoyed", "afraid") and answer["reason"]
    # '{"' is drawn; 'emotion": "' is read with it; once the value's first token is drawn its
    # rest and '", "reason": "' follow in one batch.
    assert max(batches[1:]) >= 4
    drawn = result["usage"]["completion_tokens"]
    assert len(batches) - 1 < drawn  # fewer evaluations than tokens drawn
    # Nothing unchecked stays in the cache; the end-of-answer token, drafted after the closing
    # brace and drawn, was read (usage does not count it).
    assert llm.n_tokens <= result["usage"]["prompt_tokens"] + drawn + 1


@pytest.mark.parametrize("layer", [None, 12])
def test_a_hidden_state_reads_the_words_as_the_start_of_the_next_prompt(model_path, layer):
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)
    words = '"I finally passed my driving test!"'
    said = [{"role": "system", "content": "You listen."}, {"role": "user", "content": f"The person says: {words}"}]
    state, read = llm.hidden_state(said, words, layer)
    assert state.shape == (llm.n_embd(),) and np.isfinite(state).all() and read > 8
    # Read again from the cache: only the words' tokens are read, and the state is the same.
    again, reread = llm.hidden_state(said, words, layer)
    assert reread < read and np.allclose(again, state, atol=1e-3)
    other, _ = llm.hidden_state([said[0], {"role": "user", "content": 'The person says: "My dog died."'}], '"My dog died."',
                                layer)
    assert not np.allclose(other, state, atol=1e-2)
    # The next prompt that goes on from the words reuses them, and generation is as without the read.
    ask = [said[0], {"role": "user", "content": f"The person says: {words}\n\nWhat happened? One word."}]
    fresh = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)
    expected = fresh.create_chat_completion(messages=ask, max_tokens=6, temperature=0.0)["choices"][0]["message"]["content"]
    llm.hidden_state(said, words, layer)
    cached = llm._input_ids.tolist()
    assert llm.create_chat_completion(messages=ask, max_tokens=6, temperature=0.0)["choices"][0]["message"]["content"] == expected
    assert Llama.longest_token_prefix(cached, llm._input_ids.tolist()) >= len(cached) - 1  # the read's tokens begin the prompt


def test_a_hidden_state_refuses_a_span_that_does_not_end_the_message_or_a_layer_it_cannot_tap(model_path):
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)
    with pytest.raises(ValueError, match="span"):
        llm.hidden_state([{"role": "user", "content": "hello there"}], "hello")
    last = llama_cpp.llama_model_n_layer(llm._model.model) - 1
    for layer in (last, -1):
        with pytest.raises(ValueError, match=f"layer {layer} cannot be tapped"):
            llm.hidden_state([{"role": "user", "content": "hello there"}], "there", layer)


def test_a_tapped_layer_differs_from_the_final_states_and_generation_is_unchanged(model_path):
    """The tap reads the middle layer's own outputs, and leaves the model's answers as they were."""
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False)
    said = [{"role": "user", "content": 'The person says: "I finally passed my driving test!"'}]
    middle, _ = llm.hidden_state(said, '"I finally passed my driving test!"', 4)
    final, _ = llm.hidden_state(said, '"I finally passed my driving test!"')
    assert middle.shape == final.shape and not np.allclose(middle, final, atol=1e-2)
    ask = [{"role": "user", "content": "Name a colour. One word."}]
    plain = Llama(model_path=model_path, n_ctx=512, verbose=False)
    expected = plain.create_chat_completion(messages=ask, max_tokens=4, temperature=0.0)["choices"][0]["message"]["content"]
    assert llm.create_chat_completion(messages=ask, max_tokens=4, temperature=0.0)["choices"][0]["message"]["content"] == expected


def test_a_system_message_read_once_is_restored_in_a_new_process_with_the_same_scores(model_path, tmp_path):
    """The prefix cache: the next model (a new process) restores the system message instead of reading it;
    a file that cannot be loaded is replaced, never trusted."""
    system = {"role": "system", "content": " ".join(["You are a kind listener who answers briefly and plainly."] * 8)}
    ask = [system, {"role": "user", "content": "What is the capital of France? Answer with one word."}]
    expected, read_alone = GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False).continuation_logprobs(
        ask, ["Paris", "banana"])
    cache = PrefixCache(tmp_path)

    def scores() -> tuple[list[float], int]:
        return GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False,
                                 prefix_cache=cache).continuation_logprobs(ask, ["Paris", "banana"])

    assert scores() == (expected, read_alone)  # read and kept
    [kept] = tmp_path.glob("*.kv")
    restored, read = scores()
    assert restored == pytest.approx(expected, abs=1e-4) and read < read_alone - 64
    kept.write_bytes(kept.read_bytes()[:1000])  # cut short
    assert scores() == (expected, read_alone) and kept.stat().st_size > 1000
    other = [{**system, "content": system["content"] + " Be warm."}, ask[1]]
    GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False, prefix_cache=cache).continuation_logprobs(
        other, ["Paris"])
    assert len(list(tmp_path.glob("*.kv"))) == 2  # another system message has a file of its own


def test_the_prefix_cache_keeps_only_the_files_used_last(tmp_path):
    """A changed prompt or model leaves its old file behind; saving prunes all but the ``keep`` used last."""
    for age, name in enumerate(["newest", "newer", "old", "oldest"]):
        path = tmp_path / f"{name}.kv"
        path.write_bytes(b"entries")
        os.utime(path, (1_000_000 - age * 60, 1_000_000 - age * 60))
    (tmp_path / "notes.txt").write_text("not a cache file")
    PrefixCache(tmp_path, keep=2).prune()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["newer.kv", "newest.kv", "notes.txt"]


def quote_schema(message: str) -> dict:
    """The emotion-cause step's schema with the quote limited to ``message``'s clauses, as the embedded model gets it."""
    return json_schema_format(with_choices(CauseDraft, "quote", clauses(message)), "json_object")["schema"]


def test_a_cause_quote_grammar_from_a_message_that_quotes_someone_parses(model_path):
    """The message's clauses become the quote's grammar choices; a straight quote mark in one once made a
    grammar llama.cpp could not parse, and the turn failed."""
    message = 'My daughter said her first sentence today. It was "no, daddy, mine." Saved as C:\\kids\\first.txt'
    schema = quote_schema(message)
    ask = [{"role": "user", "content": f'{message}\nJSON: "scenario", "quote" (the part that says why), "intensity".'}]
    _, answer, _ = complete_in_batches(GrammarFirstLlama(model_path=model_path, n_ctx=512, verbose=False), ask, schema)
    assert answer["quote"] in clauses(message)


def test_cause_quote_grammars_of_messages_with_odd_characters_all_parse(model_path):
    """Seeded messages strewn with quote marks, backslashes, escapes, grammar syntax and control characters: every
    clause schema is a grammar llama.cpp accepts (the clauses of 2026-12-06 failed 16 of 150 such messages)."""
    rng = random.Random(0)
    odd = ['"', "\\", "'", "`", "“", "\t", "\n", "\u2028", "\x7f", "{", "]", "|", "*", "?", "::=", "\\n", "\\u0041", "😀"]
    words = ["I", "lost", "my", "job", "and", "but", "he", "said", "no", "it", "was", "fine.", "today,"]
    llm = GrammarFirstLlama(model_path=model_path, n_ctx=256, verbose=False)
    for _ in range(60):
        message = " ".join(rng.choice(words) + (rng.choice(odd) + rng.choice(["x", ""]) if rng.random() < 0.35 else "")
                           for _ in range(rng.randint(3, 20)))
        schema = quote_schema(message)
        llm.create_chat_completion(messages=[{"role": "user", "content": "hi"}], max_tokens=2, temperature=0.0,
                                   response_format={"type": "json_object", "schema": schema})
