"""``python -m cli``: the ``five-up`` command."""

import sys

from cli.main import main

sys.exit(main())
