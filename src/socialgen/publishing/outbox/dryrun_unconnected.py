"""A dry run for a handle no account of the workspace has yet: what each network it
may be on would receive, by the text rules its adapter applies (Bluesky's 300
graphemes a part, Mastodon's 500 characters unless the instance says otherwise,
LinkedIn's one post of 3,000), and the command that connects it.

No credentials, so no network call: media are listed as they would go, the text is
split exactly as the adapter splits it. A `network:handle` names one network; a
bare network name is the user's account there; otherwise the handle's shape says
(`@name@server` the fediverse's, a domain Bluesky's, `npub1...` Nostr's, `#channel`
Discord's, `@name` X's,
Threads' or a Telegram channel's).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.registry import BUILT_IN

Preview = dict[str, Any]


def unconnected_networks(ref: str) -> tuple[list[str], str]:
    """The networks a handle may be on (by its shape), and the handle without its
    `network:`. A bare network name is "my account on it", with no handle yet."""
    names, handle = _by_shape(ref)
    return [name for name in names if name in BUILT_IN], handle


def _by_shape(ref: str) -> tuple[list[str], str]:
    prefix, colon, rest = ref.strip().partition(":")
    if colon and prefix.strip().lower() in BUILT_IN:
        return [prefix.strip().lower()], rest.strip()
    handle = ref.strip()
    bare = handle.lstrip("@")
    if handle.lower() in BUILT_IN:
        return [handle.lower()], ""
    if handle.lower().startswith("urn:li:"):
        return ["linkedin"], handle
    if "@" in bare:  # name@server: a fediverse address
        return ["mastodon", "pixelfed"], handle
    if handle.startswith("#"):  # a channel: a Discord webhook's
        return ["discord"], handle
    if bare.lower().startswith("npub1"):
        return ["nostr"], handle
    if bare.lstrip("-").isdigit():  # a chat id: a Telegram channel
        return ["telegram"], handle
    if "." in bare:  # a domain handle: Bluesky's
        return ["bluesky"], handle
    return ["x", "threads", "telegram"], handle  # @name on each of them


def connect_command(network: str, handle: str) -> str:
    bare = handle.lstrip("@")
    if network == "bluesky":
        return f"socialgen accounts add bluesky {bare or 'HANDLE'}"
    if network == "mastodon":
        _, at, server = bare.partition("@")
        return f"socialgen accounts add mastodon --instance https://{server if at else 'SERVER'}"
    if network == "linkedin":
        return "socialgen accounts add linkedin"
    command: str = _text_rules(network).connect_command(handle)
    return command


def unconnected_preview(
    network: str, handle: str, text: str, media: list[Any], *, number_parts: bool
) -> Preview:
    """What `network` would receive from `handle`, and how to connect it."""
    preview: Preview = {
        "accountId": None,
        "account": handle,
        "network": network,
        "connected": False,
        "connect": connect_command(network, handle),
        "numberParts": number_parts,
        "media": media,
    }
    try:
        if network in _PARTS:
            parts = _PARTS[network](text, number_parts)
        else:
            rules = _text_rules(network)
            if network == "pixelfed":  # an image is required: count the post's own
                images = sum(1 for item in media if item.get("kind") == "image")
                parts = rules.unconnected_parts(text, number_parts, images=images)
            else:
                parts = rules.unconnected_parts(text, number_parts)
        preview["parts"] = [{"text": part, "details": details} for part, details in parts]
    except PublishError as error:
        preview["parts"] = []
        preview["error"] = error.message
    return preview


def _bluesky(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    from socialgen.publishing.networks.bluesky.text import (
        MAX_GRAPHEMES,
        find_facets,
        graphemes,
        split_text,
    )

    if not text.strip():
        raise PublishError("Bluesky: the post has no text and no images")
    return [
        (
            part,
            {
                "graphemes": graphemes(part),
                "limit": MAX_GRAPHEMES,
                "facets": [facet.as_detail() for facet in find_facets(part)],
            },
        )
        for part in split_text(text, number_parts=number_parts)
    ]


def _mastodon(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    from socialgen.publishing.networks.mastodon.text import DEFAULT_MAX_CHARACTERS, count, split

    note = "the server's own limit is read once connected: 500 assumed"
    return [
        (part, {"characters": count(part), "limit": DEFAULT_MAX_CHARACTERS, "limit_note": note})
        for part in split(text, DEFAULT_MAX_CHARACTERS, number=number_parts)
    ]


def _linkedin(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    from socialgen.publishing.networks.linkedin.text import commentary

    return [(commentary(text), {})]


_PARTS: dict[str, Callable[[str, bool], list[tuple[str, dict[str, Any]]]]] = {
    "bluesky": _bluesky,
    "mastodon": _mastodon,
    "linkedin": _linkedin,
}


def _text_rules(network: str) -> Any:
    """A network's text.py: its `unconnected_parts(text, number_parts)` and
    `connect_command(handle)` (networks/base.py)."""
    return importlib.import_module(f"socialgen.publishing.networks.{network}.text")
