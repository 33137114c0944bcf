"""Errors a user can act on. Each message names the thing at fault and the problem."""

from __future__ import annotations

from pathlib import Path


class EmpathyGraphError(Exception):
    """Base of every error the CLI turns into one clear line."""


class ConfigError(EmpathyGraphError):
    """A configuration file or override is wrong (unknown key, bad value)."""


class ScenarioError(EmpathyGraphError):
    """A scenario file is missing, not YAML, or names a file that is not there."""


class BackendError(EmpathyGraphError):
    """The LLM backbone cannot be used (unreachable server, missing model file)."""


class StructuredOutputError(EmpathyGraphError):
    """An agent's output stayed invalid after the bounded repair attempts."""


class OutputError(EmpathyGraphError):
    """An output path is unusable: it leads out of the chosen folder."""


class DatasetError(EmpathyGraphError):
    """A dataset file is missing, unreadable or of the wrong format as a whole."""


class InputError(EmpathyGraphError):
    """A turn's input is unusable: empty, unreadable, or of a wrong kind.

    Args:
        path: the file at fault, if any.
        problem: what is wrong with it, in a few words.
    """

    def __init__(self, problem: str, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else None
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)
