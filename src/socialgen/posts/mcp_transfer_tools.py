"""The MCP tools that move posts in and out of a workspace: import_posts, as `socialgen
posts import FILE` does it, and export_posts, as `socialgen posts export` does it
(posts/transfer_cli.py), with the export as a resource when it is too large to answer
inline. Registered by this package's feature.py.

An assistant on another machine has no path on the server: a file comes in as its text
(`content`) and an export goes out as text or JSON. Both are capped at what an HTTP
JSON body may hold (256 KB, kit/limits.py), which is also all a `/mcp` request may
carry: what export_posts answers inline, import_posts takes back inline. Over stdio
the server runs on the user's own machine, as the CLI does, so import_posts also takes
a `path`, read with the CLI's own caps (an X archive of hundreds of MB included).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import MISSING, ConfigDict, Field, StrictStr

from socialgen.app.caller import Caller
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_JSON_BODY_BYTES
from socialgen.kit.uploads import size_text
from socialgen.kit.views import View
from socialgen.mcp_server.access import RECENT, WRITER, Face
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.mcp_server.resources import read_resource
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.store.engine import read_session, transaction

MAX_INLINE_BYTES = MAX_JSON_BODY_BYTES
INLINE = size_text(MAX_INLINE_BYTES)
Status = Literal["draft", "scheduled", "published"]
STATUSES: tuple[Status, ...] = ("draft", "scheduled", "published")
Format = Literal["csv", "json", "md", "ics"]
MIME_TYPES: dict[Format, str] = {
    "csv": "text/csv",
    "json": "application/json",
    "md": "text/markdown",
    "ics": "text/calendar",
}
EXPORT_URI = "socialgen://exports/{statuses}/posts.{format}"


class ImportPostsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    # A plain str (empty: not given), not `str | None`: the SDK decodes a JSON-looking
    # string given for any other type (pre_parse_json), and a JSON file's text would
    # reach the tool as a dict.
    content: StrictStr = Field(
        default="",
        description=f"The file's text (at most {INLINE}): CSV with a header row (content "
        "required; date, status, theme, post_id, publishedAt, likes, reposts, comments, "
        'impressions, media ... optional), JSON ({"posts": [...]} or a list, the same '
        "keys, as export_posts gives it), X's archive tweets.js or X's analytics CSV.",
    )
    format: Literal["csv", "json"] | None = Field(
        default=None,
        description="How to read content. Default: json when it starts with [ or {, "
        "else csv (an X archive is recognised by its text either way).",
    )
    path: StrictStr | None = Field(
        default=None,
        description="Instead of content, over stdio only (socialgen mcp): the absolute "
        "path of a .csv or .json file, tweets.js or X's analytics export on this machine.",
    )
    update: bool = Field(
        default=False,
        description="Rows whose post_id is a post here replace its content and theme "
        "(default: they are skipped).",
    )
    ids: bool = Field(default=False, description="Also answer the new posts' ids (postIds).")


class ImportSkipped(View):
    existing: int = Field(description="Rows naming a post the workspace has.")
    duplicates: int = Field(description="Published posts the workspace already had.")
    replies: int = Field(description="An X archive's or export's replies.")
    retweets: int = Field(description="An X archive's retweets.")


class ImportedPosts(View):
    imported: int
    scheduled: int
    published: int
    updated: int
    skipped: ImportSkipped
    postIds: list[str] | MISSING = Field(default=MISSING, description="With ids: true.")


class ExportPostsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    format: Format = Field(
        default="json",
        description="json (the posts themselves) or csv: a backup, every field with the "
        "counts and media flag, that import_posts reads back; md (Markdown) or ics "
        "(iCalendar) to read or to put in a calendar.",
    )
    status: list[Status] | None = Field(
        default=None, description="Only posts of these statuses; all when left out."
    )


class ExportedPosts(View):
    format: str
    exported: int = Field(description="How many posts.")
    posts: list[dict[str, Any]] | MISSING = Field(
        default=MISSING, description=f"json: the posts, newest first (up to {INLINE})."
    )
    content: str | MISSING = Field(
        default=MISSING, description=f"csv, md, ics: the export's text (up to {INLINE})."
    )
    resource: str | MISSING = Field(
        default=MISSING,
        description=f"An export larger than {INLINE}: the resource to read it from "
        "(resources/read), made afresh when it is read.",
    )
    bytes: int = Field(description="The export's size in bytes (UTF-8).")


def register(server: MCPServer[Any], face: Face) -> None:
    async def import_posts(context: Context[Any, Any], request: ImportPostsInput) -> ImportedPosts:
        source = _source(request, face.local_files)  # refused before any credential check
        who = await in_thread(face.caller, context, request.workspaceId, WRITER)
        return await in_thread(_import, who, source, request)

    async def export_posts(context: Context[Any, Any], request: ExportPostsInput) -> ExportedPosts:
        who = await in_thread(face.caller, context, request.workspaceId, RECENT)
        return await in_thread(_export, who, request.format, request.status or [])

    add_tool(
        server, "import_posts", ImportPostsInput, import_posts, ImportedPosts,
        hints(read_only=False),
        title="Import posts from a file",
        description="Create posts from a file's text (content) or, over stdio, its path, "
        "all or nothing, as `socialgen posts import` does: drafts; scheduled posts (status "
        "scheduled and a future date); published history with its counts and media flag "
        "(status published, publishedAt), what insights learns from; dates as that "
        "command reads them. Every row is checked first: one bad row "
        "imports nothing and the error names each bad row. Skips rows whose post_id is a "
        "post here (replaces their text with update: true), published posts already here, "
        "and an X archive's replies and retweets. Nothing is published to any network.",
    )  # fmt: skip
    add_tool(
        server, "export_posts", ExportPostsInput, export_posts, ExportedPosts,
        hints(read_only=True),
        title="Export posts",
        description="Every post of the workspace (or of the statuses asked), newest "
        "first, as `socialgen posts export` gives them: json or csv is a backup "
        "(import_posts reads it back), md or ics for reading. Answered inline up to "
        f"{INLINE}; a larger export is answered as a resource URI to read instead. "
        "Changes nothing.",
    )  # fmt: skip

    for fmt, mime in MIME_TYPES.items():
        _add_export_resource(server, face, fmt, mime)


def _add_export_resource(server: MCPServer[Any], face: Face, fmt: Format, mime: str) -> None:
    @server.resource(
        EXPORT_URI.replace("{format}", fmt),
        name=f"posts_export_{fmt}",
        title=f"The posts as {fmt}",
        description="The workspace's posts exported as export_posts does it; {statuses}: "
        "all, or statuses joined by commas (draft,published).",
        mime_type=mime,
    )
    async def exported(statuses: str, context: Context[Any, Any]) -> str:
        def read() -> str:
            who = face.caller(context, None, RECENT)
            return _export_text(who, fmt, _statuses(statuses))[1]

        return await read_resource(read)


def _source(request: ImportPostsInput, local_files: bool) -> str | Path:
    """The file's text, or (stdio) its path: one of them, within its cap."""
    if request.path is not None and request.content:
        raise BadRequest("Give the file's content or its path, not both")
    if request.path is not None:
        if not local_files:
            raise BadRequest(
                "path names a file on the machine socialgen runs on, which a client over "
                f"HTTP cannot reach: send the file's text as content (at most {INLINE})"
            )
        path = Path(request.path).expanduser()
        if not path.is_absolute():  # the server's working folder is the client's choice
            raise BadRequest(f"path must be absolute (got {request.path})")
        return path
    if not request.content.strip():
        raise BadRequest(
            "Give the file's text as content"
            + (" or its absolute path as path" if local_files else "")
        )
    size = len(request.content.encode("utf-8", "surrogatepass"))
    if size > MAX_INLINE_BYTES:
        more = " or, over stdio, its path" if local_files else "; split the file"
        raise BadRequest(
            f"content is {size_text(size)}, more than the {INLINE} a tool call carries: "
            f"send a smaller file{more}"
        )
    return request.content


def _import(who: Caller, source: str | Path, request: ImportPostsInput) -> ImportedPosts:
    from socialgen.posts.imports import import_posts, read_import

    if isinstance(source, Path):
        parsed = read_import(source)
    else:
        fmt = request.format or ("json" if source.lstrip()[:1] in ("[", "{") else "csv")
        # read_import reads a file (and streams an X archive): the text becomes one, in
        # a private folder removed at once; errors name it "content.csv" or ".json".
        with tempfile.TemporaryDirectory(prefix="socialgen-import-") as folder:
            path = Path(folder) / f"content.{fmt}"
            path.write_text(source, encoding="utf-8", newline="")
            parsed = read_import(path)
    with transaction(who.engine) as session:
        result = import_posts(
            session, who.workspace_id, parsed.posts, user_id=who.user_id, update=request.update
        )
    answer = ImportedPosts(
        imported=len(result.post_ids),
        scheduled=result.scheduled,
        published=result.published,
        updated=result.updated,
        skipped=ImportSkipped(
            existing=result.existing,
            duplicates=result.duplicates,
            replies=parsed.skipped_replies,
            retweets=parsed.skipped_retweets,
        ),
    )
    if request.ids:
        answer.postIds = result.post_ids
    return answer


def _export(who: Caller, fmt: Format, statuses: list[Status]) -> ExportedPosts:
    count, text, posts = _export_text(who, fmt, statuses)
    size = len(text.encode("utf-8"))
    answer = ExportedPosts(format=fmt, exported=count, bytes=size)
    if size > MAX_INLINE_BYTES:
        answer.resource = EXPORT_URI.format(statuses=",".join(statuses) or "all", format=fmt)
    elif posts is not None:
        answer.posts = posts
    else:
        answer.content = text
    return answer


def _export_text(
    who: Caller, fmt: Format, statuses: list[Status]
) -> tuple[int, str, list[dict[str, Any]] | None]:
    """How many posts, the export's text, and (json) the posts themselves."""
    from socialgen.posts import exports
    from socialgen.posts.repository_exports import export_items
    from socialgen.store.tables import Workspace

    with read_session(who.engine) as session:
        items = export_items(session, who.workspace_id, list(statuses))
        found = session.get(Workspace, who.workspace_id)
        name = found.name if found is not None else who.workspace_id
    if fmt == "json":
        # Inline the posts themselves; the size that decides, and the resource, are
        # the file's (exports.to_json), as `posts export --format json` writes it.
        return len(items), exports.to_json(items), exports.json_posts(items)
    if fmt == "csv":
        return len(items), exports.to_csv(items, backup=True), None
    if fmt == "md":
        return len(items), exports.to_markdown(items, title=f"Posts of {name}"), None
    return len(items), exports.to_ics(items, calendar_name=f"socialgen: {name}"), None


def _statuses(text: str) -> list[Status]:
    """A resource URI's {statuses}: "all", or statuses joined by commas."""
    if text == "all":
        return []
    asked = text.split(",")
    chosen = [status for status in STATUSES if status in asked]
    if len(chosen) != len(set(asked)):
        raise BadRequest(
            f"Unknown statuses in the URI: {text} (all, or {', '.join(STATUSES)} joined by commas)"
        )
    return chosen
