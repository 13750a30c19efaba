"""The gRPC server runtime every service shares: health, reflection, size limits, graceful
shutdown (server.py), domain errors as status codes and deadlines (status_mapping.py), one log line
per RPC (request_log.py)."""
