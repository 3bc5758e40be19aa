"""`socialgen --help` loads only what drawing the help needs (issue 26: "`socialgen
--help` and `posts recent` must stay as fast as today"). bench/startup.py times it;
this names the modules that must not come with it, so a new top-level import in any
command group's CLI fails here rather than only slowing a bench."""

from __future__ import annotations

import subprocess
import sys

# The statistics for insights (numpy, scikit-learn), the store (SQLAlchemy) and the
# file store (hashing, logging: ~25 ms) load when a command runs, never for the help.
NOT_FOR_HELP = (
    "numpy",
    "sklearn",
    "sqlalchemy",
    "socialgen.files.store",
    "socialgen.insights.ranker",
)


def test_help_loads_no_statistics_store_or_file_store() -> None:
    code = (
        "import sys\n"
        "from socialgen.cli.main import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {NOT_FOR_HELP!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert "Usage" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"
