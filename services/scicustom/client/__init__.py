"""gRPC clients of the platform's services, for the CLI (e.g. `scicustom --profile cluster build`)."""
