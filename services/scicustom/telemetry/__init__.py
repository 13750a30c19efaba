"""OpenTelemetry for the platform: provider set-up from `OTEL_*` env, gRPC and Kafka context
propagation, and log records that carry the trace id."""
