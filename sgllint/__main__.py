import sys

from sgllint.cli import main

sys.exit(main())
