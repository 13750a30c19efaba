"""Use cases of paper ingestion: submit, parse, extract, and what a paper's state is."""
