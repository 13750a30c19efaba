"""Papers: PaperService (gRPC) and the parse and extract stage workers (Kafka)."""
