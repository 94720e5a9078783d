"""In-memory test twins of the ports, shipped with the package for tests and benchmarks: the
scripted chat model, and every storage port over one shared store (`storage.MemoryStorage`),
each kept honest by its port's contract suite (tests/*_contract.py)."""
