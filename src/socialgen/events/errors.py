"""The one error of the event contract, apart so the payload models and the registry
need nothing of `socialgen.events` (which imports them)."""

from __future__ import annotations


class EventContractError(Exception):
    """An event whose payload is not its model's: a bug, never a user's error.

    Not a SocialgenError, so no stream turns it into an `error` event and hides it.
    """
