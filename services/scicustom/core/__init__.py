"""Pure domain logic. Imports no grpc, kafka, minio, elasticsearch, kserve or litellm."""
