"""Grammar-constrained sampling that asks the grammar about the sampled token first.

llama-cpp-python puts the JSON grammar in front of its sampler chain, so every step
checks all 151,936 tokens of Qwen2.5's vocabulary against the grammar: measured here,
107 ms a token instead of 76 (+40 %). llama.cpp's own server samples first and asks the
grammar only about the token it drew, paying for the full pass only when that token is
refused. ``GrammarFirstLlama`` does the same through llama.cpp's C sampler API; outputs
still follow the grammar exactly.
"""

from __future__ import annotations

import ctypes
import functools
import math
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import Llama, llama_chat_format
from llama_cpp._internals import LlamaContext, LlamaSampler, LlamaTokenDataArray
from llama_cpp.llama_grammar import LlamaGrammar


class GrammarFirstSampler:
    """An unconstrained sampler chain plus a grammar that vets what it draws.

    Args:
        chain: llama-cpp-python's chain without the grammar (penalties, top-k/p, temperature, draw).
        vocab: the model's vocabulary (``LlamaModel.vocab``).
        grammar: the GBNF grammar the output must follow.
        n_vocab: vocabulary size.
    """

    def __init__(self, chain: LlamaSampler, vocab: Any, grammar: LlamaGrammar, n_vocab: int) -> None:
        self._chain = chain
        self._grammar = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not self._grammar:
            raise ValueError("llama.cpp could not parse the grammar")
        self._n_vocab = n_vocab
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)
        self._all = LlamaTokenDataArray(n_vocab=n_vocab)
        self.refused = 0  # drawn tokens the grammar refused (each cost a full pass)

    def allows(self, token: int) -> bool:
        """Whether the grammar accepts ``token`` next."""
        self._one[0].id, self._one[0].logit, self._one[0].p = token, 1.0, 0.0
        self._one_array.size, self._one_array.selected, self._one_array.sorted = 1, -1, False
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(self._one_array))
        return not math.isinf(self._one[0].logit)

    def sample(self, ctx: LlamaContext, idx: int = -1) -> int:
        """Draw a token for position ``idx`` that the grammar accepts."""
        token = llama_cpp.llama_sampler_sample(self._chain.sampler, ctx.ctx, idx)
        if not self.allows(token):
            self.refused += 1
            # The full pass: the grammar masks every refused token, then the chain draws again.
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx.ctx, idx), shape=(self._n_vocab,))
            self._all.copy_logits(logits)
            self._all.candidates.selected = -1
            candidates = ctypes.byref(self._all.candidates)
            llama_cpp.llama_sampler_apply(self._grammar, candidates)
            llama_cpp.llama_sampler_apply(self._chain.sampler, candidates)
            token = int(self._all.candidates_data.id[self._all.candidates.selected])
        llama_cpp.llama_sampler_accept(self._grammar, token)
        return token

    def accept(self, token: int) -> None:
        self._chain.accept(token)
        llama_cpp.llama_sampler_accept(self._grammar, token)

    def reset(self) -> None:
        self._chain.reset()
        llama_cpp.llama_sampler_reset(self._grammar)

    def close(self) -> None:
        if getattr(self, "_grammar", None):
            llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None
        if hasattr(self, "_chain"):
            self._chain.close()

    def __del__(self) -> None:
        self.close()


class GrammarFirstLlama(Llama):
    """``llama_cpp.Llama`` whose grammar-constrained sampling vets the drawn token first."""

    def _init_sampler(self, *args: Any, grammar: LlamaGrammar | None = None, **kwargs: Any) -> Any:
        chain = super()._init_sampler(*args, grammar=None, **kwargs)
        if grammar is None:
            return chain
        return GrammarFirstSampler(chain, self._model.vocab, grammar, self._n_vocab)

    def continuation_logprobs(self, messages: list[dict[str, str]], continuations: list[str]) -> tuple[list[float], int]:
        """Log-probability of each continuation as the start of the assistant's reply, and the tokens read.

        The prompt's longest prefix already in the KV cache is reused; each continuation
        is read in one batch after it and then dropped again. Nothing is decoded.
        """
        tokens = self._chat_prompt_tokens(messages)
        reused = min(Llama.longest_token_prefix(self._input_ids.tolist(), tokens), len(tokens) - 1)
        self.n_tokens = reused
        self.eval(tokens[reused:])
        first = _log_softmax(self._logits_at(-1))
        read = len(tokens) - reused
        scores = []
        for text in continuations:
            piece = self.tokenize(text.encode("utf-8"), add_bos=False, special=False)
            total = float(first[piece[0]])
            if len(piece) > 1:
                self._ctx.kv_cache_seq_rm(-1, len(tokens), -1)
                self._batch.set_batch(batch=piece[:-1], n_past=len(tokens), logits_all=True)
                self._ctx.decode(self._batch)
                read += len(piece) - 1
                total += sum(float(_log_softmax(self._logits_at(i))[token]) for i, token in enumerate(piece[1:]))
            scores.append(total)
        self._ctx.kv_cache_seq_rm(-1, len(tokens), -1)
        self.n_tokens = len(tokens)
        return scores, read

    @functools.cached_property
    def _chat_formatter(self) -> llama_chat_format.Jinja2ChatFormatter:
        """The GGUF's chat template, compiled once (create_chat_completion formats with the same)."""
        template = self.metadata.get("tokenizer.chat_template")
        if not template:
            raise ValueError("the model has no chat template to score choices with")
        eos, bos = self.token_eos(), self.token_bos()
        return llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=self._model.token_get_text(eos) if eos != -1 else "",
            bos_token=self._model.token_get_text(bos) if bos != -1 else "",
        )

    def _chat_prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The tokens create_chat_completion would read for ``messages``."""
        formatted = self._chat_formatter(messages=messages)
        return self.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True)

    def _logits_at(self, index: int) -> np.ndarray:
        return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self._ctx.ctx, index), shape=(self._n_vocab,))


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    top = float(logits.max())
    return logits - (top + math.log(float(np.exp(logits - top).sum())))
