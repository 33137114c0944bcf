"""The agents, one module each: prompt, output schema and node function."""
