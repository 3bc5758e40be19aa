"""A dry run for a handle no account of the workspace has yet: what each network it
may be on would receive, by the text rules its adapter applies (Bluesky's 300
graphemes a part, Mastodon's 500 characters unless the instance says otherwise,
LinkedIn's one post of 3,000), and the command that connects it.

No credentials, so no network call: media are listed as they would go, the text is
split exactly as the adapter splits it. A `network:handle` names one network; a
Mastodon address (`@name@server`) is Mastodon's; any other handle could be on each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.registry import BUILT_IN

Preview = dict[str, Any]


def unconnected_networks(ref: str) -> tuple[list[str], str]:
    """The networks a handle may be on, and the handle without its `network:`."""
    prefix, colon, rest = ref.strip().partition(":")
    if colon and prefix.strip().lower() in BUILT_IN:
        return [prefix.strip().lower()], rest.strip()
    handle = ref.strip()
    if "@" in handle.lstrip("@"):  # name@server: a fediverse address
        return ["mastodon"], handle
    return list(BUILT_IN), handle


def connect_command(network: str, handle: str) -> str:
    bare = handle.lstrip("@")
    if network == "bluesky":
        return f"socialgen accounts add bluesky {bare}"
    if network == "mastodon":
        _, at, server = bare.partition("@")
        return f"socialgen accounts add mastodon --instance https://{server if at else 'SERVER'}"
    return f"socialgen accounts add {network}"


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
        preview["parts"] = [
            {"text": part, "details": details}
            for part, details in _PARTS[network](text, number_parts)
        ]
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
