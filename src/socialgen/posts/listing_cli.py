"""`socialgen posts recent | timeline | list | search`: the post listings.

recent and timeline are SPEC.md's 90-day windows; list is every post, of any age;
search is list with words to find. All four take the same filters (--status,
--since/--until, --search) and page the same way (--limit, --all, --cursor): the HTTP
listings' query parameters and MCP's search_posts, with the same meaning
(posts.post_filter). A time without an offset in --since/--until is read in the
person's zone (the `timezone` setting, else the system's); a date alone is its whole
day there.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import tzinfo
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from socialgen.cli.support import (
    IdShortener,
    JsonOpt,
    WorkspaceOpt,
    current_runtime,
    emit,
    open_workspace,
)
from socialgen.kit.limits import DEFAULT_TABLE_POSTS, POST_LIST_LIMIT

if TYPE_CHECKING:
    from socialgen.posts.post_filter import PostFilter
    from socialgen.posts.views import PostListJson

LimitOpt = Annotated[
    int | None,
    typer.Option(
        "--limit",
        help=f"At most N posts, latest first ({POST_LIST_LIMIT.describe()}). Default: "
        f"{DEFAULT_TABLE_POSTS} in the table, all with --json.",
        show_default=False,
    ),
]
AllOpt = Annotated[bool, typer.Option("--all", help="Every post listed, in the table.")]
CursorOpt = Annotated[
    str | None,
    typer.Option(
        "--cursor", help="Continue after this nextCursor (same filters).", show_default=False
    ),
]
StatusOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--status",
        metavar="STATUS",
        help="Only draft, scheduled or published posts (repeat, or draft,scheduled).",
        show_default=False,
    ),
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="WHEN",
        help="From this date or time (ISO 8601; your zone unless it has an offset).",
        show_default=False,
    ),
]
UntilOpt = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="WHEN",
        help="Up to this date (the whole day) or time, as --since.",
        show_default=False,
    ),
]
SearchOpt = Annotated[
    str | None,
    typer.Option(
        "--search",
        metavar="TEXT",
        help="Only posts whose text has every word (or a word's start).",
        show_default=False,
    ),
]
TITLES = {"recent": "Recent posts", "timeline": "Timeline", "all": "Posts"}


def recent(
    status: StatusOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    search: SearchOpt = None,
    limit: LimitOpt = None,
    show_all: AllOpt = False,
    cursor: CursorOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Drafts, scheduled and published posts of the last 90 days (or --since), plus
    future scheduled ones."""
    where = _filter(status, since, until, search)
    _list_posts("recent", where, limit, show_all, cursor, workspace, json_output)


def timeline(
    status: StatusOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    search: SearchOpt = None,
    limit: LimitOpt = None,
    show_all: AllOpt = False,
    cursor: CursorOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Published posts of the last 90 days (or --since) and scheduled posts; no drafts."""
    where = _filter(status, since, until, search)
    _list_posts("timeline", where, limit, show_all, cursor, workspace, json_output)


def list_posts(
    status: StatusOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    search: SearchOpt = None,
    limit: LimitOpt = None,
    show_all: AllOpt = False,
    cursor: CursorOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Every post of any age, latest first: filter by status, dates and words."""
    where = _filter(status, since, until, search)
    _list_posts("all", where, limit, show_all, cursor, workspace, json_output)


def search_posts(
    text: Annotated[str, typer.Argument(help="Words the post's text has.", show_default=False)],
    status: StatusOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    limit: LimitOpt = None,
    show_all: AllOpt = False,
    cursor: CursorOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Posts of any age whose text has every word: `posts list --search TEXT`."""
    where = _filter(status, since, until, text)
    _list_posts("all", where, limit, show_all, cursor, workspace, json_output)


def _filter(
    status: list[str] | None, since: str | None, until: str | None, search: str | None
) -> PostFilter:
    from socialgen.posts.post_filter import make_filter

    if since is None and until is None:
        return make_filter(status, None, None, search)
    return make_filter(status, since, until, search, _person_zone())


def _person_zone() -> tzinfo | None:
    """The zone a person means: the `timezone` setting when set (checked by `config
    set`), else None: the system's local time (post_filter.parse_bound)."""
    setting = current_runtime().light_setting("timezone")
    if not setting:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from socialgen.kit.errors import BadRequest

    try:
        return ZoneInfo(str(setting).strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise BadRequest(f"Unknown time zone {setting!r} in the timezone setting") from None


def _list_posts(
    kind: str,
    where: PostFilter,
    limit: int | None,
    show_all: bool,
    cursor: str | None,
    workspace: str | None,
    json_output: bool,
) -> None:
    """The table shows the newest DEFAULT_TABLE_POSTS unless --limit or --all says
    otherwise; --json gives every post listed (SPEC.md's shape) unless --limit or
    --cursor asks for a page."""
    from socialgen.kit.errors import BadRequest
    from socialgen.posts.quick_listing import quick_listing

    if show_all and limit is not None:
        raise BadRequest("Give --limit N or --all, not both")
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    elif not show_all and not json_output:
        limit = DEFAULT_TABLE_POSTS
    if workspace is None:  # --workspace and SOCIALGEN_WORKSPACE win over the config file
        workspace = current_runtime().light_setting("workspace")
    # A SQLite store ready for use is read without SQLAlchemy (a quicker start).
    store = current_runtime().store_settings
    data = quick_listing(
        kind, workspace, limit=limit, cursor=cursor, database_url=store.database_url, where=where
    )
    if data is None:
        from socialgen.posts import listing
        from socialgen.store.engine import read_session

        reads = {
            "recent": listing.recent_posts,
            "timeline": listing.posts_timeline,
            "all": listing.list_posts,
        }
        engine, workspace_id = open_workspace(workspace)
        with read_session(engine) as session:
            data = reads[kind](session, workspace_id, limit=limit, cursor=cursor, where=where)
    if json_output:
        write_post_list(data, sys.stdout)
        return
    from socialgen.posts.tables_cli import empty_listing, print_post_table

    title = TITLES[kind]
    empty = empty_listing(title, cursor, filtered=where.narrows)
    shorten = _post_shortener(workspace)
    emit(False, data, lambda out: print_post_table(out, data, title, cursor, shorten, empty))


def _post_shortener(workspace: str | None) -> IdShortener:
    """The posts table's short ids: read as the listing was (quickly on a ready SQLite
    store), only when a table is drawn."""

    def shorten(ids: list[str]) -> Mapping[str, str]:
        from socialgen.posts.quick_listing import quick_short_ids

        database_url = current_runtime().store_settings.database_url
        quick = quick_short_ids(workspace, ids, database_url=database_url)
        if quick is not None:
            return quick
        from socialgen.cli.refs import shortener

        engine, workspace_id = open_workspace(workspace)
        return shortener(engine, "post", workspace_id)(ids)

    return shorten


JSON_CHUNK_POSTS = 1000


def write_post_list(data: PostListJson, stream: TextIO) -> None:
    """`data` as emit's one JSON line, byte for byte, written 1,000 posts at a time: a
    window of 100,000 posts never becomes one 50 MB string (and its encoded copy)."""
    from socialgen.cli.support import json_text

    posts = data["posts"]
    stream.write('{"posts": [')
    for start in range(0, len(posts), JSON_CHUNK_POSTS):
        chunk = json_text(posts[start : start + JSON_CHUNK_POSTS])
        stream.write((", " if start else "") + chunk[1:-1])  # without the brackets
    rest = json_text({k: v for k, v in data.items() if k != "posts"})
    stream.write("], " + rest[1:] + "\n")
