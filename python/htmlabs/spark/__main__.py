"""``python -m htmlabs.spark``: the command line (:mod:`htmlabs.spark.cli`)."""

import sys

from htmlabs.spark.cli import main

if __name__ == "__main__":
    sys.exit(main())
