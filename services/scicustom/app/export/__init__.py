"""`scicustom export`: a finished build's benchmark in the formats other evaluation tools load
(lm-evaluation-harness, inspect_ai, Hugging Face datasets, CSV)."""
