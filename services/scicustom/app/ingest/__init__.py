"""Ingest use cases: corpus import, tagging, intrinsic scores and the Kafka ingest stages' logic."""
