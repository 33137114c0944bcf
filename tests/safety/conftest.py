"""The risk classifier's training script, loaded as a module for the tests that check its parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "train_risk_classifier.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("train_risk_classifier", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module
