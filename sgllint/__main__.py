import gc
import os
import sys

# ``python -m sgllint`` puts the current directory first on sys.path (and an
# empty PYTHONPATH entry names it too). In the tree being linted (an editor
# starts ``python -m sgllint lsp`` there) that would import the tree's own
# ``yaml.py`` or ``pygls.py`` instead of the real ones: code from the tree
# would run. Nothing sgllint needs lives there.
_cwd = os.path.realpath(os.getcwd())
sys.path[:] = [p for p in sys.path if not isinstance(p, str) or os.path.realpath(p or ".") != _cwd]

from sgllint.hosts.cli import main  # noqa: E402

code = main()
# the process ends here: the interpreter's last collection would scan every
# object left (a large run's results) for nothing
gc.freeze()
sys.exit(code)
