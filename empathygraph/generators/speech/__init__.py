"""Speech backends (TTS), by name: ``SPEECH``.

Each backend is a ``base.SpeechSynthesizer`` built from the ``GeneratorsConfig``; the
voice's DSP (``voice_dsp``), its character by avatar profile (``voice_character``) and the
reply's sentences (``text``) are shared by them. A new voice: copy ``espeak.py`` (the
smallest), then ``SPEECH.register("name", "module:Class")`` below, or from your own
package through the ``empathygraph.speech`` entry point.
"""

from __future__ import annotations

from empathygraph.generators.base import SpeechSynthesizer
from empathygraph.generators.registry import Backends

SPEECH: Backends[SpeechSynthesizer] = Backends("speech", "empathygraph.speech")
SPEECH.register("kokoro", "empathygraph.generators.speech.kokoro:KokoroSpeech")
SPEECH.register("piper", "empathygraph.generators.speech.piper:PiperSpeech")
SPEECH.register("espeak", "empathygraph.generators.speech.espeak:EspeakSpeech")
SPEECH.register("coqui", "empathygraph.generators.speech.coqui:CoquiSpeech")
