"""The served OpenAPI schema documents every route, the turn request, each event's payload and the errors."""

from __future__ import annotations

from typing import Any

from empathygraph.serve.uploads import TurnRequest
from empathygraph.serve.wire import EVENT_TYPES

ROUTES = {
    "/healthz": {"get"}, "/readyz": {"get"}, "/v1/sessions/{session_id}/turns": {"post"},
    "/v1/sessions/{session_id}": {"get"}, "/v1/sessions/{session_id}/turns/{turn_index}": {"get"},
    "/v1/sessions/{session_id}/trace": {"get"}, "/v1/sessions/{session_id}/report": {"get"},
    "/v1/sessions/{session_id}/media/{path}": {"get"},
}


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for value in node.values() for r in refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in refs(value)]
    return []


def test_schema_documents_routes_requests_events_and_errors(client):
    schema = client.get("/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    assert {path: set(ops) for path, ops in schema["paths"].items()} == ROUTES
    components = schema["components"]["schemas"]
    for ref in refs(schema):  # every reference resolves inside the document
        assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in components, ref

    turn = schema["paths"]["/v1/sessions/{session_id}/turns"]["post"]
    content = turn["requestBody"]["content"]
    assert set(content) == {"application/json", "multipart/form-data"}
    assert set(components["TurnRequest"]["properties"]) == set(TurnRequest.model_fields)
    assert set(content["multipart/form-data"]["schema"]["properties"]) == set(TurnRequest.model_fields)
    assert "text/event-stream" in turn["responses"]["200"]["content"]
    for name in EVENT_TYPES:
        assert name in turn["responses"]["200"]["description"]
    assert set(schema["x-turn-events"]) == set(EVENT_TYPES)
    for status in ("409", "413", "415", "429", "503"):
        assert turn["responses"][status]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
    assert schema["paths"]["/v1/sessions/{session_id}"]["get"]["responses"]["404"]


def test_documented_shapes_are_what_the_server_sends(client):
    """An event's payload validates against its documented schema (checked on a real turn)."""
    from tests.serve.conftest import turn_events

    events = turn_events(client, "shapes", json={"text": "My dog died yesterday."})
    seen = {event.name for event in events}
    assert {"started", "step_started", "step_finished", "reply_started", "reply_token", "verdict", "turn"} <= seen
    for event in events:
        model = EVENT_TYPES[event.name]
        payload = {key: value for key, value in event.data.items() if key != "t"}
        assert model.model_validate(payload).model_dump(mode="json") == payload
