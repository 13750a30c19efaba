"""Ingestion's entry points: IngestService (gRPC) and the tag / index stage workers (Kafka). The use
cases (corpus import, batches, stages, search indexing) are in `scicustom.app.ingest`."""
