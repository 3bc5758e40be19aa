"""The networks a command runs with: its Runtime's (a test hands in a scripted one).

The registry is imported when a command asks, not when the command line is built:
`socialgen --help` lists the publishing commands without loading networks/base.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from socialgen.publishing.registry import Networks


def command_networks() -> Networks:
    from socialgen.cli.support import current_runtime
    from socialgen.publishing.registry import Networks

    return Networks.of(current_runtime())
