"""Safe to expose: a token on every route but /healthz, media only from the session's own folder, no CORS unless asked."""

from __future__ import annotations

import os

import pytest

from tests.serve.conftest import ready_client, serve_config, turn_events

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def guarded(tmp_path):
    client = ready_client(serve_config(tmp_path, token=TOKEN))
    yield client
    client.__exit__(None, None, None)


def test_every_route_but_healthz_asks_for_the_token(guarded):
    assert guarded.get("/healthz").status_code == 200
    for path in ("/", "/readyz", "/openapi.json", "/docs", "/static/app.js", "/v1/sessions/x", "/v1/sessions/x/trace",
                 "/v1/sessions/x/media/turn-0/reply.wav"):
        refused = guarded.get(path)
        assert refused.status_code == 401, path
        assert refused.json()["error"]["code"] == "unauthorized" and refused.headers["www-authenticate"] == "Bearer"
    assert guarded.post("/v1/sessions/x/turns", json={"text": "hi"}).status_code == 401
    assert guarded.get("/readyz", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert guarded.get("/readyz", headers=AUTH).status_code == 200
    events = turn_events(guarded, "x", headers=AUTH, json={"text": "My dog died."})
    assert events[-1].name == "turn"


def test_the_page_opened_with_its_token_sets_a_strict_cookie(guarded):
    assert guarded.get("/?token=wrong", follow_redirects=False).status_code == 401
    opened = guarded.get(f"/?token={TOKEN}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/"
    cookie = opened.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = guarded.get("/")  # the client keeps the cookie, as a browser does
    assert page.status_code == 200 and "Chain of empathy" in page.text
    assert guarded.get("/static/app.js").status_code == 200


def test_media_is_served_only_from_the_sessions_own_folder(client, tmp_path):
    turn_events(client, "mine", json={"text": "My dog died."})
    turn_events(client, "theirs", json={"text": "My cat died."})
    root = tmp_path / "media" / "sessions"
    (root / "mine" / "turn-0").mkdir(parents=True, exist_ok=True)
    (root / "theirs").mkdir(parents=True, exist_ok=True)
    (root / "mine" / "turn-0" / "note.txt").write_text("mine")
    (root / "theirs" / "secret.txt").write_text("theirs")
    (tmp_path / "outside.txt").write_text("outside")
    os.symlink(tmp_path / "outside.txt", root / "mine" / "link.txt")
    assert client.get("/v1/sessions/mine/media/turn-0/note.txt").text == "mine"
    for attempt in ("../theirs/secret.txt", "..%2Ftheirs%2Fsecret.txt", "%2e%2e/theirs/secret.txt",
                    "turn-0/../../theirs/secret.txt", "/etc/passwd", "%2Fetc%2Fpasswd", "link.txt", ".hidden",
                    "turn-0/..", "turn-0//note.txt", "..\\theirs\\secret.txt", "turn-0/note.txt%00.wav"):
        response = client.get(f"/v1/sessions/mine/media/{attempt}")
        assert response.status_code == 404, (attempt, response.status_code, response.text)
        assert response.json()["error"]["code"] in ("unknown_media", "not_found")
    assert client.get("/v1/sessions/..%2Ftheirs/media/secret.txt").status_code in (404, 422)
    assert client.get("/v1/sessions/theirs/media/secret.txt").text == "theirs"  # each session reads its own


def test_no_cors_unless_configured(client, tmp_path):
    asked = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options("/v1/sessions/x/turns", headers=asked).headers
    assert "access-control-allow-origin" not in client.get("/healthz", headers={"Origin": "https://elsewhere.example"}).headers
    allowed = ready_client(serve_config(tmp_path / "cors", cors_origins=["https://app.example"], token=TOKEN))
    try:
        preflight = allowed.options("/v1/sessions/x/turns", headers={**asked, "Origin": "https://app.example",
                                                                     "Access-Control-Request-Headers": "authorization"})
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
        other = allowed.options("/v1/sessions/x/turns", headers=asked)
        assert other.headers.get("access-control-allow-origin") != "https://elsewhere.example"
    finally:
        allowed.__exit__(None, None, None)
