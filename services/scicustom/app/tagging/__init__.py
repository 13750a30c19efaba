"""Tagger use cases: tag a JSONL file, train, evaluate and export the tagger."""
