"""The risk classifier's and risk probe's training scripts, loaded as modules for the tests that check their parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "train_risk_classifier.py"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def script():
    return _load(SCRIPT)


@pytest.fixture(scope="module")
def probe_script():
    return _load(SCRIPT.with_name("train_risk_probe.py"))


@pytest.fixture(scope="module")
def choice_script():
    return _load(SCRIPT.with_name("train_choice_screen.py"))
