"""Errors are JSON with a clear message and the right status; limits are checked before anything is decoded."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from empathygraph.generators.audio import write_wav
from tests.serve.conftest import MEDIA, ready_client, serve_config


def error(response, status: int, code: str | None = None) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]["message"]


@pytest.fixture
def limited(tmp_path):
    client = ready_client(serve_config(tmp_path, max_upload_mb=0.5, max_media_seconds=2.0, max_image_pixels=100_000,
                                       max_text_chars=200))
    yield client
    client.__exit__(None, None, None)


def post(client, session="s", **request):
    return client.post(f"/v1/sessions/{session}/turns", **request)


def test_unknown_sessions_turns_and_routes_are_404(client):
    assert "no session nobody" in error(client.get("/v1/sessions/nobody"), 404, "unknown_session")
    error(client.get("/v1/sessions/nobody/trace"), 404, "unknown_session")
    error(client.get("/v1/sessions/nobody/report"), 404, "unknown_session")
    error(client.get("/v1/sessions/nobody/turns/0"), 404, "unknown_session")
    error(client.get("/v2/anything"), 404, "not_found")


def test_bad_requests_say_what_is_wrong(client):
    assert "letters, digits" in error(post(client, "no spaces!", json={"text": "hi"}), 422, "bad_session_id")
    assert "empty turn" in error(post(client, json={"text": "   "}), 422, "empty_turn")
    error(post(client, content=b"{not json", headers={"content-type": "application/json"}), 400, "bad_json")
    assert "text/plain" not in error(post(client, content=b"hi", headers={"content-type": "text/plain"}), 415)
    assert "profile" in error(post(client, json={"text": "hi", "profile": {"age": "ancient"}}), 422, "invalid")
    assert "mood" in error(post(client, json={"text": "hi", "mood": "x"}), 422, "invalid")
    error(client.put("/v1/sessions/s/turns", json={"text": "hi"}), 405)


def test_bad_media_is_refused_by_its_content_not_its_name(client):
    text_as_audio = {"audio": ("voice.wav", b"this is not audio at all", "audio/wav")}
    assert "not a audio format" in error(post(client, data={"text": "hi"}, files=text_as_audio), 415)
    image_as_video = {"video": ("clip.mp4", (MEDIA / "sad_face.jpg").read_bytes(), "video/mp4")}
    error(post(client, files=image_as_video), 415, "unsupported_media")
    broken = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 40
    assert "cannot read" in error(post(client, files={"audio": ("x.wav", broken, "audio/wav")}), 422, "bad_media")
    not_base64 = {"text": "hi", "audio": {"data": "%%%"}}
    assert "base64" in error(post(client, json=not_base64), 422, "bad_media")
    both = {"image": ("a.jpg", (MEDIA / "sad_face.jpg").read_bytes()), "video": ("b.mp4", (MEDIA / "sad_face.mp4").read_bytes())}
    assert "not both" in error(post(client, files=both), 422)


def test_limits_are_enforced_before_decoding(limited, tmp_path):
    big = b"\x00" * 600_000
    assert "over the 0.5 MB limit" in error(post(limited, files={"audio": ("x.wav", big)}), 413, "too_large")
    error(post(limited, content=big, headers={"content-type": "application/json"}), 413, "too_large")

    def chunks():  # no declared length: counted as it streams in
        for _ in range(10):
            yield b"\x00" * 100_000

    error(post(limited, content=chunks(), headers={"content-type": "application/json"}), 413, "too_large")
    long_voice = tmp_path / "long.wav"
    write_wav(long_voice, np.zeros(16_000 * 3, np.float32), 16_000)  # 3 s of silence, under 0.5 MB
    assert "over the 2 s limit" in error(post(limited, files={"audio": ("v.wav", long_voice.read_bytes())}), 413)
    encoded = base64.b64encode(long_voice.read_bytes()).decode()
    error(post(limited, json={"audio": {"data": encoded}}), 413, "too_long")
    assert "over the 2 s limit" in error(post(limited, files={"video": ("v.mp4", (MEDIA / "sad_face.mp4").read_bytes())}), 413)
    picture = io.BytesIO()
    Image.new("RGB", (400, 400)).save(picture, "PNG")  # 160,000 pixels
    assert "pixels" in error(post(limited, files={"image": ("p.png", picture.getvalue())}), 413, "too_large")
    assert "characters" in error(post(limited, json={"text": "x" * 201}), 413, "too_long")


def test_one_session_answers_one_turn_at_a_time_and_a_full_queue_says_busy(tmp_path):
    from tests.conftest import SlowWriter, make_empathizer
    from tests.serve.conftest import parse_sse

    config = serve_config(tmp_path, concurrency=1, max_queue=1)
    client = ready_client(config, make_empathizer(SlowWriter(script=__import__("tests.conftest").conftest.DEFAULT_SCRIPT,
                                                             seconds_per_word=0.05), config))
    try:
        with client.stream("POST", "/v1/sessions/a/turns", json={"text": "My dog died."}) as first:
            lines = first.iter_lines()
            events = parse_sse(lines)
            assert next(events).name == "started"
            assert "answering a turn already" in error(post(client, "a", json={"text": "again"}), 409, "turn_in_progress")
            with client.stream("POST", "/v1/sessions/b/turns", json={"text": "Me too."}) as second:
                waiting = parse_sse(second.iter_lines())
                assert next(waiting).name == "queued"
                busy = post(client, "c", json={"text": "And me."})
                assert "waiting already" in error(busy, 429, "busy") and busy.headers["retry-after"] == "5"
                assert [e.name for e in events][-1] == "turn"
                rest = [e.name for e in waiting]
                assert rest[0] == "started" and rest[-1] == "turn"
    finally:
        client.__exit__(None, None, None)
