"""Benchmark builds: wiring the stored corpus and the jury into the core pipeline, and writing results."""
