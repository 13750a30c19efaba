"""Evaluating models on a built benchmark: prompts, label extraction, accuracy, rankings."""
