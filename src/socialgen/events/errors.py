"""The one error of the event contract, apart so the registry needs nothing of
`socialgen.events` at run time (which imports the registry to check)."""

from __future__ import annotations


class EventContractError(Exception):
    """An event whose payload is not its model's: a bug, never a user's error.

    Not a SocialgenError, so no stream turns it into an `error` event and hides it.
    """
