"""AlchemyBench (paper 003): recipe extraction, retrieval-augmented prediction, the 7-criterion judge."""
