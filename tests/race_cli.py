"""`socialgen` with the recording network handed in through the Runtime, for the tests
and benches that run real `serve` and `publish-due` processes against it
(tests/test_publish_race.py, bench/publish.py):

    python -m tests.race_cli serve --port 8123      (cwd: the repository)

The network is named `racenet` (tests/fakes/recording_network.py). Nothing in
socialgen imports a module named in the environment: the child builds its Runtime
here, the way a test hands one to `runner.invoke(app, args, obj=runtime)`. `serve
--workers N` gives its workers the options only, not this Runtime: run one worker.
"""

from __future__ import annotations

import sys

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.cli.process_exit import end_now
from socialgen.publishing.registry import NetworkModule
from tests.fakes import recording_network

RACE_NETWORK = "racenet"
COMMAND = [sys.executable, "-m", "tests.race_cli"]


def runtime() -> Runtime:
    network: NetworkModule = recording_network  # type: ignore[assignment]
    return Runtime(networks={RACE_NETWORK: network})


def main() -> None:
    try:
        app(obj=runtime())  # typer ends with SystemExit, whatever the command did
    except SystemExit as done:
        end_now(done.code)  # as socialgen.cli.main.main does
        raise


if __name__ == "__main__":
    main()
