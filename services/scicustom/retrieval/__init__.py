"""The retrieval service: the paper's ordered candidates and embedding kNN over the corpus index."""
