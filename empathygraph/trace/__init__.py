"""Trace records of every step of a turn, their storage and replay."""

from empathygraph.trace.records import StepRecord, TokenUsage

__all__ = ["StepRecord", "TokenUsage"]
