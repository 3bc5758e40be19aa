"""The posts commands' terminal output: the listings, one post, conversations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from socialgen.cli.support import (
    IdShortener,
    creator_zone,
    notes,
    piped,
    print_plain_rows,
    styled,
)
from socialgen.kit.local_time import in_zone, local_minute, zone_header

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from rich.console import Console

    from socialgen.posts.schemas import PostDetail
    from socialgen.posts.views import PostListJson


# What fills an empty listing, said beside it.
FILL_HINTS = {
    "Recent posts": 'Write one: socialgen post "TOPIC"',
    "Timeline": "Schedule a draft: socialgen posts schedule ID --at TIME",
    "Posts": 'Write one: socialgen post "TOPIC", or import your history: socialgen posts import',
}


def empty_listing(title: str, cursor: str | None, *, filtered: bool) -> str:
    """What an empty listing says: its window and how to fill it, or that the filters
    (--status, --since, --until, --search) left nothing."""
    if cursor:
        return f"{title}: nothing more."
    if filtered:
        return f"{title}: no post matches. Fewer filters, or socialgen posts list for all."
    if title == "Posts":
        return f"No posts yet. {FILL_HINTS[title]}"
    return f"{title}: nothing in the last 90 days. {FILL_HINTS.get(title, '')}".rstrip()


def print_post_table(
    out: Console,
    data: PostListJson,
    title: str,
    cursor: str | None,
    shorten: IdShortener,
    empty: str | None = None,
) -> None:
    """The listing as the quick path and `--json` give it: PostList's JSON object;
    `empty` is what to say when it has no post (empty_listing)."""
    from rich.table import Table

    from socialgen.posts.views import snippet

    if not data["posts"]:
        notes(out).print(empty or empty_listing(title, cursor, filtered=False))
        return
    shown, total = len(data["posts"]), data["total"]
    count = f"{shown} of {total}" if shown < total else f"{total}"
    zone = creator_zone()
    if piped(out):
        print_plain_rows(
            out,
            [
                [
                    post["id"],
                    post["status"],
                    post["postType"],
                    plain_when(post, zone),
                    post_line(post),
                ]
                for post in data["posts"]
            ],
        )
        _print_more(notes(out), data, cursor)
        return
    # Each id whole on one line (its short unique prefix), so a double-click copies it.
    short = shorten([post["id"] for post in data["posts"]])
    table = Table(title=f"{title} ({count})", title_justify="left")
    table.add_column("id", no_wrap=True, min_width=8)
    for column in ("status", "type", zone_header("when", zone), "post"):
        table.add_column(column, overflow="ellipsis")
    for post in data["posts"]:
        table.add_row(
            short.get(post["id"], post["id"]),
            post["status"],
            post["postType"],
            local_minute(moment_of(post), zone),
            snippet(post["postContent"]),
        )
    out.print(table)
    _print_more(out, data, cursor)


def _print_more(out: Console, data: PostListJson, cursor: str | None) -> None:
    next_cursor = data.get("nextCursor")
    if next_cursor:
        shown, total = len(data["posts"]), data["total"]
        more = f"{total - shown} more" if cursor is None else "More"
        out.print(
            f"{more} not shown: --limit N or --all for more at once, "
            f"or --cursor {next_cursor} for the next {shown}."
        )


def post_line(post: dict[str, Any]) -> str:
    """A post's text on one line, whole: a program reading the rows cuts it itself."""
    return " ".join(post["postContent"].split())


def moment_of(post: dict[str, Any]) -> str | None:
    """The post's own moment (ISO 8601 UTC): when it went out (published), is due
    (scheduled), or was written (a draft); an imported post's is the file's date,
    never the import's."""
    moment = {"scheduled": post["scheduledAt"], "published": post.get("publishedAt")}.get(
        post["status"]
    )
    return moment or post["createdAt"] or None


def plain_when(post: dict[str, Any], zone: ZoneInfo) -> str:
    """moment_of in the creator's zone with its offset, for a program reading rows."""
    moment = moment_of(post)
    return in_zone(moment, zone).isoformat(timespec="minutes") if moment else ""


def print_post_detail(out: Console, detail: PostDetail) -> None:
    from rich.panel import Panel

    from socialgen.kit.local_time import local_moment

    zone = creator_zone()
    facts = [
        f"status {detail.status}",
        f"type {detail.postType}",
        f"created {local_moment(detail.createdAt, zone)}",
    ]
    if detail.scheduledAt:
        facts.append(f"scheduled {local_moment(detail.scheduledAt, zone)}")
    if detail.publishedAt:
        facts.append(f"published {local_moment(detail.publishedAt, zone)}")
    if detail.postUrl:
        facts.append(detail.postUrl)
    out.print(styled((detail.conversationTitle, "bold"), f"  ({detail.id})"))
    out.print(" · ".join(facts))
    out.print(Panel(detail.postContent, expand=False))
    out.print(f"{len(detail.versions)} version(s); conversation {detail.conversationId}")


def print_conversations(out: Console, data: Any, shorten: IdShortener) -> None:
    from rich.table import Table

    pagination = data["pagination"]
    zone = creator_zone()
    if not data["conversations"]:
        notes(out).print(
            "No conversations on this page."
            if pagination["total"]
            else 'No conversations yet. Start one: socialgen chat "MESSAGE"'
        )
        return
    if piped(out):
        print_plain_rows(
            out,
            [
                [
                    c["_id"],
                    c["title"],
                    in_zone(c["updatedAt"], zone).isoformat(timespec="minutes"),
                    c["status"],
                ]
                for c in data["conversations"]
            ],
        )
        return
    table = Table(
        title=f"Conversations (page {pagination['page']} of {max(pagination['pages'], 1)}, "
        f"{pagination['total']} in all)",
        title_justify="left",
    )
    short = shorten([c["_id"] for c in data["conversations"]])
    table.add_column("id", no_wrap=True, min_width=8)  # never cut: `chat --conversation` takes it
    for column in ("title", zone_header("updated", zone), "status"):
        table.add_column(column, no_wrap=column != "title")
    for conversation in data["conversations"]:
        table.add_row(
            short.get(conversation["_id"], conversation["_id"]),
            conversation["title"],
            local_minute(conversation["updatedAt"], zone),
            conversation["status"],
        )
    out.print(table)
