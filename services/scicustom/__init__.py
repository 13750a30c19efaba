"""SciCustom: build custom scientific benchmarks for LLMs and score scientific model output."""

__version__ = "0.1.0"
