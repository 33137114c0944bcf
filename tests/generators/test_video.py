"""The MP4 encoder starts ffmpeg in a way that cannot hang a process with other threads."""

from __future__ import annotations

import subprocess
import threading

import numpy as np

from empathygraph.generators.avatar.video import encode_mp4, probe, read_frames


def test_ffmpeg_is_started_without_python_code_in_the_forked_child(tmp_path, monkeypatch):
    """A ``preexec_fn`` runs Python between fork and exec; with other threads holding locks it can hang forever."""
    started: list[dict] = []
    real_popen = subprocess.Popen

    def recording_popen(*args, **kwargs):
        started.append(kwargs)
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", recording_popen)
    busy = threading.Event()
    # Other threads running while ffmpeg starts, as in a served turn (the voice, the model, the server).
    workers = [threading.Thread(target=lambda: [busy.wait(0.001) for _ in range(2000)]) for _ in range(4)]
    for worker in workers:
        worker.start()
    frames = [np.full((64, 64, 3), shade, dtype=np.uint8) for shade in range(0, 250, 10)]
    out = tmp_path / "clip.mp4"
    assert encode_mp4(frames, out, (64, 64), 25, None) == len(frames)
    decoded = list(read_frames(out))
    for worker in workers:
        worker.join()
    assert started and all(kwargs.get("preexec_fn") is None for kwargs in started), started
    assert len(decoded) == len(frames) and probe(out)["video_codec"] == "h264"
