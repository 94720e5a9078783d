"""Runs the rest of its command line and, once it ends, prints its peak resident memory on
standard error as `peak-rss-kib N` (a launcher for tests/helpers.py's `shopagent`)."""

from __future__ import annotations

import resource
import subprocess
import sys

if __name__ == "__main__":
    code = subprocess.call(sys.argv[1:])
    print(f"peak-rss-kib {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr, flush=True)
    sys.exit(code)
