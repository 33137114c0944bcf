"""The web page in a real headless Chromium with a fake microphone and camera fed from files.

Record -> snapshot -> send -> events arrive -> the chain of empathy fills in step by step,
the reply is written, its sentences are heard and the avatar video plays; no console errors.
Needs Debian's ``chromium`` and the ``playwright`` package (which drives it; no browser
download); skips without them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DEFAULT_SCRIPT, REPO, SlowWriter, make_empathizer
from tests.serve.conftest import MEDIA, serve_config

sys.path.insert(0, str(REPO / "benchmarks"))
from serve_client import free_port

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (drives Debian's chromium)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
TOKEN = "page-token"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required",
         "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
REPLY = "I'm so sorry your dog died. The house must feel so quiet without him."


@pytest.fixture(scope="module")
def camera_file(tmp_path_factory) -> Path:
    """The example face video as the fake camera's Y4M stream."""
    import imageio_ffmpeg

    out = tmp_path_factory.mktemp("camera") / "face.y4m"
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-i", str(MEDIA / "sad_face.mp4"), "-t", "2",
                    "-pix_fmt", "yuv420p", str(out)], check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """A real uvicorn server with a slow scripted model, a real voice and avatar; yields its URL."""
    import uvicorn

    from empathygraph.serve.app import create_app

    config = serve_config(tmp_path_factory.mktemp("served"), token=TOKEN,
                          generators={"speech": "piper", "avatar": "procedural"})
    model = SlowWriter(script={**DEFAULT_SCRIPT, "ResponseDraft": {"reply": REPLY}}, seconds_per_word=0.08)
    empathizer = make_empathizer(model, config)
    empathizer.renderer.prepare()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(config, empathizer=empathizer), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1200):  # a minute at most: a busy machine may take a while, a broken one fails here
        if server.started or not thread.is_alive():
            break
        time.sleep(0.05)
    assert server.started, "the uvicorn server did not start"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def browser(camera_file) -> Iterator[object]:
    with playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=[
            *FLAGS, f"--use-file-for-fake-audio-capture={MEDIA / 'sad_voice.wav'}",
            f"--use-file-for-fake-video-capture={camera_file}"], timeout=120_000)
        yield chromium
        chromium.close()


def open_page(browser, url: str, **context):
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(60_000)  # every step waits at most a minute unless it says otherwise
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{url}/?token={TOKEN}")
    page.wait_for_function("document.getElementById('status').textContent.includes('Say what')")
    # Watch the media elements from outside the app: which played, and in what order.
    page.evaluate("""() => { window.heard = [];
        for (const id of ['speech', 'avatar']) document.getElementById(id).addEventListener('playing',
            (e) => window.heard.push([id, e.target.currentSrc.split('/').pop()])); }""")
    return page, problems


def test_record_snapshot_send_and_follow_the_turn(browser, server, tmp_path):
    page, problems = open_page(browser, server, viewport={"width": 1280, "height": 900})
    page.click("#record")
    page.wait_for_function("document.getElementById('record').getAttribute('aria-pressed') === 'true'")
    page.wait_for_timeout(2500)
    page.click("#record")
    page.wait_for_selector("#attachments li[data-kind=audio]")
    page.click("#snapshot")
    page.wait_for_selector("#attachments li[data-kind=image]")
    page.fill("#text", "I have felt so low since my dog died.")
    page.click("#send")
    # The chain fills in while the turn runs: perception is shown before the reply is finished.
    page.wait_for_function("document.querySelector('#chain [data-stage=cues]').dataset.state === 'done'"
                           " && document.getElementById('status').textContent !== 'Your turn.'", timeout=120_000)
    page.wait_for_function("document.getElementById('status').textContent === 'Your turn.'", timeout=180_000)
    page.wait_for_function("window.heard.some(([id]) => id === 'avatar')", timeout=60_000)
    # the second sentence plays when the first has been heard out, which may end after the video came; a
    # playback that stalls on a busy machine fires 'playing' again for the same sentence, so count distinct ones
    page.wait_for_function("new Set(window.heard.filter(([id]) => id === 'speech').map(([, n]) => n)).size >= 2",
                           timeout=60_000)
    heard = page.evaluate("window.heard")
    spoken = list(dict.fromkeys(name for kind, name in heard if kind == "speech"))
    assert spoken[:2] == ["sentence-000.wav", "sentence-001.wav"], heard
    assert [name for kind, name in heard if kind == "avatar"] == ["avatar.mp4"]
    for name in ("cues", "emotion", "strategy", "critique"):
        assert page.get_attribute(f"#chain [data-stage={name}]", "data-state") == "done", name
    assert "sad" in page.inner_text("#chain [data-stage=emotion]")
    assert "accept" in page.inner_text("#chain [data-stage=critique]")
    assert page.inner_text("#messages li.listener .words") == REPLY
    assert "(audio) (image)" in page.inner_text("#messages li.person")
    assert page.locator("#trajectory circle").count() == 1
    page.screenshot(path=str(tmp_path / "desktop.png"), full_page=True)
    assert problems == [], problems


def test_keyboard_only_on_a_phone_sized_screen(browser, server, tmp_path):
    page, problems = open_page(browser, server, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"
    for _ in range(10):  # Tab reaches the message box
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "text":
            break
    assert page.evaluate("document.activeElement.id") == "text"
    page.keyboard.type("My dog died last week.")
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('status').textContent === 'Your turn.'", timeout=180_000)
    assert page.inner_text("#messages li.listener .words") == REPLY
    assert page.evaluate("document.activeElement.id") == "text", "focus returns to the message box"
    send = page.locator("#send").bounding_box()
    assert send["height"] >= 44 and send["x"] + send["width"] <= 390
    page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    assert problems == [], problems
