"""`python -m ddblas ...`: the command line of ddblas.tools.cli."""
import sys

from ddblas.tools.cli import main

sys.exit(main())
