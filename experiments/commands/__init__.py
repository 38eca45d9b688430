"""The `sushigo` commands, one module per group: what each command does once its arguments are
parsed (`experiments.cli` parses them, and loads a command's module only when it runs)."""
