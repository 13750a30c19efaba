"""Use cases: what the CLI, the gRPC servicers and the Kafka workers do, each defined once.

An entry point parses its input, calls one use case and renders the result; validation and limits
live here, so every path applies the same ones. Use cases reach the outside world only through the
ports (`scicustom.ports`), which `scicustom.bootstrap` wires to adapters.
"""
