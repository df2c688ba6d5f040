"""``python -m rageval`` -> :func:`rageval.cli.main`."""
import sys

from rageval.cli import main

sys.exit(main())
