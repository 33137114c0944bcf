"""Reading P(yes) from a server: first-token logprobs, and a constrained answer where a server has none."""

from __future__ import annotations

import json
import math

import httpx
from langchain_core.messages import HumanMessage, SystemMessage

from empathygraph.backbones.base import ContinuationScores
from empathygraph.backbones.yes_no import ServerYesNoReader, reader_from_scorer

MESSAGES = [SystemMessage("You are careful."), HumanMessage("Is the sky green? Answer yes or no.")]


def server(handler) -> ServerYesNoReader:
    return ServerYesNoReader("http://llm.test/v1", "m", client=httpx.Client(transport=httpx.MockTransport(handler)))


def test_logprobs_of_every_spelling_of_yes_and_no_are_summed():
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert body["max_tokens"] == 1 and body["logprobs"] is True and body["messages"][0]["role"] == "system"
        top = [{"token": "Yes", "logprob": math.log(0.3)}, {"token": " yes", "logprob": math.log(0.1)},
               {"token": "No", "logprob": math.log(0.4)}, {"token": "Maybe", "logprob": math.log(0.2)}]
        return httpx.Response(200, json={"choices": [{"logprobs": {"content": [{"token": "No", "top_logprobs": top}]}}],
                                         "usage": {"prompt_tokens": 17}})

    reading = server(handler)(MESSAGES)
    assert reading.method == "logprobs" and reading.prompt_tokens == 17
    assert abs(reading.p_yes - 0.4 / 0.8) < 1e-9


def test_a_server_without_logprobs_is_asked_for_a_constrained_answer_once_and_then_directly():
    asked: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        asked.append(body)
        if body.get("logprobs"):
            return httpx.Response(200, json={"choices": [{"message": {"content": "N"}}]})
        assert body["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"] == ["yes", "no"]
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"answer": "yes"}'}}]})

    reader = server(handler)
    assert reader(MESSAGES).p_yes == 1.0 and reader(MESSAGES).method == "constrained"
    assert [bool(b.get("logprobs")) for b in asked] == [True, False, False]


def test_an_embedded_scorer_is_read_as_a_two_way_softmax():
    reading = reader_from_scorer(lambda messages, options: ContinuationScores([math.log(0.2), math.log(0.6)], 5))(MESSAGES)
    assert abs(reading.p_yes - 0.25) < 1e-9 and reading.method == "scored"
