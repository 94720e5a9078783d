"""In-memory test twins of the ports, shipped with the package for tests and benchmarks."""
