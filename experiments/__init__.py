"""Experiments: batches of matches aggregated into pandas frames and plots."""
