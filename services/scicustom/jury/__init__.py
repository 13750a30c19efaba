"""The jury service: the build's voting and relevance judges, callable on their own."""
