"""A post as one network receives it: its parts, the media each part carries, what
is left out, and the limits that shaped it. No rule is written here: each network's
plan (plan_threads.py, plan_channels.py) calls its own package's functions, the ones
its adapter's `prepare` and the dry run call, without credentials or a network call.

Where a limit is the instance's own (Mastodon's characters, Pixelfed's album), it is
read only when the post goes out: the preview assumes the network's default and says
so in its rules (`posts publish --dry-run` asks the instance)."""

from __future__ import annotations

from collections.abc import Callable

from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.preview import plan_channels, plan_threads
from socialgen.publishing.preview.shapes import Plan

Planner = Callable[[str, tuple[MediaItem, ...], bool], Plan]
PLANNERS: dict[str, Planner] = {
    "bluesky": plan_threads.bluesky,
    "mastodon": plan_threads.mastodon,
    "x": plan_threads.x,
    "threads": plan_threads.threads,
    "nostr": plan_threads.nostr,
    "linkedin": plan_channels.linkedin,
    "telegram": plan_channels.telegram,
    "discord": plan_channels.discord,
    "pixelfed": plan_channels.pixelfed,
}


def plan_for(network: str, text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    """`network`'s plan for the post; a PublishError (the adapter's own words) when the
    network would refuse it."""
    planner = PLANNERS.get(network)
    if planner is None:
        raise PublishError(f"socialgen has no preview for the network {network!r}")
    return planner(text, media, number_parts)
