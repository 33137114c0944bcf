"""Perception tools: plain functions with no LLM inside (ASR, prosody, face, text emotion, safety)."""
