"""`python -m engine`: the command line (engine/entrypoints/cli.py)."""

import sys

from engine.entrypoints.cli import main

if __name__ == "__main__":
    sys.exit(main())
