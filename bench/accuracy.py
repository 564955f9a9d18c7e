"""Accuracy report: `python bench/accuracy.py [--quick] [--out-dir DIR]` is
`python -m ddblas accuracy [--quick] [--out-dir DIR]` (writes DIR/accuracy.md and three plots)."""
import sys

from ddblas.tools.cli import main

sys.exit(main(["accuracy", *sys.argv[1:]]))
