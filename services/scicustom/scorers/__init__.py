"""ScorerService: the M2M, SciIF and AlchemyBench scorers over gRPC, records inline (servicer.py); one
module per suite turns its messages into the rows the CLI reads and its results into messages."""
