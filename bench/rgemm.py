"""rgemm benchmark: `python bench/rgemm.py [args]` is `python -m ddblas bench rgemm [args]`."""
import sys

from ddblas.tools.cli import main

sys.exit(main(["bench", "rgemm", *sys.argv[1:]]))
