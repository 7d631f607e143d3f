"""``python -m groundwatch.cli``: the same as the ``groundwatch`` command."""

import sys

from groundwatch.cli.entry import main

sys.exit(main())
