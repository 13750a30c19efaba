"""Benchmark builds over gRPC and Kafka: BuildService (servicer.py) and the stage workers
(worker.py), thin edges over the build use cases in app/build/."""
