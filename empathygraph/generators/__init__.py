"""Speech (TTS) and avatar-video generators behind small protocols."""
