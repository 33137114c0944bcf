"""The HTTP API with a scripted model: turns as JSON or multipart, their events, sessions, traces, errors."""

from __future__ import annotations

import json
import threading

import pytest

from empathygraph.serve.app import create_app
from empathygraph.trace.records import StepRecord
from tests.conftest import make_empathizer, scripted
from tests.serve.conftest import MEDIA, ready_client, serve_config, turn_events

TEXT = "Yesterday my dog died and the house is empty."


def names(events) -> list[str]:
    return [event.name for event in events]


def test_health_is_open_and_ready_waits_for_the_models(tmp_path):
    loading = threading.Event()
    config = serve_config(tmp_path, warm_up=True)
    empathizer = make_empathizer(scripted(), config)
    original = empathizer.prepare
    empathizer.prepare = lambda: (loading.wait(30), original())[1]
    from fastapi.testclient import TestClient

    with TestClient(create_app(config, empathizer=empathizer)) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        busy = client.get("/readyz")
        assert busy.status_code == 503 and busy.json()["error"]["code"] == "not_ready"
        turn = client.post("/v1/sessions/early/turns", json={"text": TEXT})
        assert turn.status_code == 503 and "loading" in turn.json()["error"]["message"]
        loading.set()
        for _ in range(200):
            if (ready := client.get("/readyz")).status_code == 200:
                break
            threading.Event().wait(0.05)
        assert ready.json()["ready"] and "warm_up_turn" in ready.json()["load_seconds"]
        with pytest.raises(KeyError):  # the warm-up turn left no session behind
            client.get("/v1/sessions/early").json()["turns"]


def test_a_json_turn_streams_its_events_in_order_and_is_kept(client):
    events = turn_events(client, "anna", json={"text": TEXT})
    order = names(events)
    assert order[0] == "started" and order[-1] == "turn"
    assert order.index("reply_started") < order.index("reply_token") < order.index("turn")
    finished = [e.data["node"] for e in events if e.name == "step_finished"]
    assert finished[:2] == ["begin_turn", "read"] and finished[-2:] == ["render", "remember"]
    emotion = next(e.data for e in events if e.name == "step_finished" and e.data["node"] == "emotion_cause")
    assert emotion["outputs"][0]["emotion"] == "sad"
    assert dict(emotion["decisions"])["emotion"].startswith("sad") and emotion["headline"].startswith("sad")
    reply = "".join(e.data["text"] for e in events if e.name == "reply_token")
    result = events[-1].data["result"]
    assert reply == result["plan"]["text"] and result["turn_index"] == 0
    assert all(e.data["t"] >= 0 for e in events)

    second = turn_events(client, "anna", json={"text": "I still miss him at the door."})
    assert second[0].data == {**second[0].data, "session_id": "anna", "turn_index": 1}
    history = client.get("/v1/sessions/anna").json()
    assert [t["user"] for t in history["turns"]] == [TEXT, "I still miss him at the door."]
    assert client.get("/v1/sessions/anna/turns/1").json()["result"]["turn_index"] == 1

    trace = client.get("/v1/sessions/anna/trace")
    assert trace.headers["content-type"].startswith("application/jsonl")
    records = [StepRecord.model_validate_json(line) for line in trace.text.splitlines()]
    assert {r.turn_index for r in records} == {0, 1} and {r.session_id for r in records} == {"anna"}
    only_first = client.get("/v1/sessions/anna/trace", params={"turn": 0}).text.splitlines()
    assert {json.loads(line)["turn_index"] for line in only_first} == {0}
    report = client.get("/v1/sessions/anna/report")
    assert report.headers["content-type"].startswith("text/html") and "Chain of empathy" in report.text


def test_a_multipart_turn_with_a_recording_and_a_photo_reaches_the_senses(client, tmp_path):
    with (MEDIA / "sad_voice.wav").open("rb") as voice, (MEDIA / "sad_face.jpg").open("rb") as face:
        events = turn_events(client, "ben", data={"text": "listen"},
                             files={"audio": ("anything.bin", voice, "application/octet-stream"),
                                    "image": ("me.jpg", face, "image/jpeg")})
    result = events[-1].data["result"]
    assert events[-1].name == "turn", events[-1]
    assert set(result["perception"]["modalities"]) >= {"audio", "image", "text"}
    uploads = sorted(p.name for p in (tmp_path / "media" / "sessions" / "ben" / "uploads").iterdir())
    assert sorted(name.split("-", 1)[1] for name in uploads) == ["audio.wav", "image.jpg"]  # named by content


def test_a_turn_with_media_streams_each_sentence_and_the_video_as_urls(tmp_path):
    client = ready_client(serve_config(tmp_path, generators={"speech": "espeak", "avatar": "procedural"}))
    try:
        events = turn_events(client, "cara", json={"text": TEXT})
    finally:
        client.__exit__(None, None, None)
    spoken = [e.data for e in events if e.name == "speech"]
    media = {e.data["kind"]: e.data["url"] for e in events if e.name == "media"}
    assert [s["index"] for s in spoken] == [0, 1] and all(s["url"].endswith(".wav") for s in spoken)
    assert names(events).index("speech") < names(events).index("media")
    assert set(media) == {"audio", "video"}
    client = ready_client(serve_config(tmp_path))
    try:
        for url in [s["url"] for s in spoken] + list(media.values()):
            got = client.get(url)
            assert got.status_code == 200 and len(got.content) > 1000, url
        assert client.get(media["video"]).headers["content-type"] == "video/mp4"
    finally:
        client.__exit__(None, None, None)


def test_results_show_urls_not_server_paths(client, tmp_path):
    with (MEDIA / "sad_face.jpg").open("rb") as face:
        events = turn_events(client, "dora", data={"text": TEXT}, files={"image": ("me.jpg", face, "image/jpeg")})
    assert str(tmp_path) not in json.dumps([e.data for e in events])


def test_a_session_takes_its_next_turn_the_moment_its_last_one_is_over(client):
    """The client hears 'turn' and sends again at once: that turn is never refused as still running."""
    for index in range(12):
        events = turn_events(client, "eager", json={"text": f"{TEXT} ({index})"})
        assert events[-1].name == "turn" and events[0].data["turn_index"] == index
