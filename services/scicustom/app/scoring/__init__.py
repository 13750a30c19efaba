"""Scoring model output with the metric suites of the literature: M2M hypotheses, SciIF instruction
following, AlchemyBench recipes. `scicustom score <suite>` and ScorerService call the same use cases.

A use case that gRPC also serves names a bad field as its request message does (`options.workers`);
the CLI renames those fields to its flags. LLM cost is tallied per call of a use case
(`core.llm_usage.MeteredLLM`), since the service's LLM client is shared by every request.
"""
