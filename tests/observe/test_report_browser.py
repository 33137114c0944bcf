"""The HTML report in a real headless Chromium: loads without console messages, shows plot, steps, media.

Needs Debian's ``chromium`` (CI: ``apt-get install -y chromium``); skips without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from empathygraph.trace.report import write_report
from empathygraph.trace.store import read_trace
from tests.observe.conftest import with_media

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
CONSOLE = re.compile(r":CONSOLE[:(]")


def chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--enable-logging=stderr", "--v=0", *args, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture
def report(tmp_path: Path, session_trace: Path) -> Path:
    with_media(session_trace)
    records, problems = read_trace(session_trace)
    assert problems == []
    return write_report(records, tmp_path / "report.html", source=session_trace)


def test_console_messages_are_caught_at_all(tmp_path: Path):
    """The check below means something only if a page's console errors do show up."""
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>console.error('boom'); missing();</script></body></html>")
    logged = chromium(tmp_path, page, "--dump-dom").stderr
    assert "boom" in logged and len(CONSOLE.findall(logged)) == 2


def test_report_loads_cleanly_with_plot_steps_and_media(tmp_path: Path, report: Path):
    run = chromium(tmp_path, report, "--dump-dom")
    assert CONSOLE.findall(run.stderr) == [], run.stderr
    dom = run.stdout
    assert '<svg id="emotion-trajectory"' in dom and ">sad<" in dom  # the plot, with its emotion labels as text
    assert dom.count('<tr class="step"') > 12
    assert 'data-step="emotion_cause"' in dom and 'data-step="reflection"' in dom
    assert "Chain of empathy" in dom and "Goal to response" in dom
    assert re.search(r'<audio controls[^>]*src="data:audio/[\w-]+;base64,', dom)
    assert re.search(r'<video controls[^>]*src="data:video/mp4;base64,', dom)
    assert 'id="timeline-2"' in dom
    assert "file not found" not in dom


def test_report_screenshot_shows_the_trajectory_plot(tmp_path: Path, report: Path):
    shot = tmp_path / "shot.png"
    chromium(tmp_path, report, "--window-size=1200,900", f"--screenshot={shot}")
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=int)
    # the valence line is drawn in #3b6ea8; its pixels are on the first screen
    blue = (np.abs(pixels - (59, 110, 168)) < 12).all(axis=2).sum()
    assert blue > 200
