"""Sub-commands of the `scicustom` CLI, one module each; each exposes `register(subparsers)`."""
