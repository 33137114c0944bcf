"""Evaluation: dataset loaders, metrics, systems under test, the runner and its report."""
