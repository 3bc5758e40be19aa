"""What the CLI takes wherever it takes a post, conversation, style, carousel,
account, workspace, API key or token: the whole id, any unique prefix of it (6
characters or more, any case, with or without UUID dashes) or, for the named kinds,
the name (any case). What the listings show in its place: the shortest unique
prefix, 8 characters or more.

Every command resolves its references here, then hands whole ids to the services
the HTTP API shares (the API keeps taking whole ids only). A kind is named by a word
("post") or, for a slice's own (publishing's accounts: publishing/accounts/refs.py),
given as its RefKind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING

from socialgen.cli.support import IdShortener, open_workspace

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlmodel import Session

    from socialgen.store.refs import RefKind


def kind(named: str | RefKind) -> RefKind:
    return _kinds()[named] if isinstance(named, str) else named


@cache
def _kinds() -> dict[str, RefKind]:
    """The kinds, made on first use (their tables import SQLAlchemy)."""
    from socialgen.store.refs import RefKind, opening
    from socialgen.store.tables import (
        AccessToken,
        ApiKey,
        Carousel,
        ContentStyle,
        Conversation,
        Post,
        StylePost,
        User,
    )
    from socialgen.workspaces.service import WORKSPACE_REF

    kinds = {
        "post": RefKind("post", "posts", Post, lambda p: f"{p.status}  {opening(p.content)}"),
        "conversation": RefKind(
            "conversation", "conversations", Conversation, lambda c: opening(c.title or "")
        ),
        "style": RefKind(
            "content style", "content styles", ContentStyle, lambda s: s.name, names=("name",)
        ),
        "example": RefKind(
            "style post",  # as the services word it: "Style post not found"
            "style posts",
            StylePost,
            lambda p: opening(p.content),
            scope="style_id",  # a style's own examples
        ),
        "carousel": RefKind("carousel", "carousels", Carousel, lambda c: c.name, names=("name",)),
        "workspace": WORKSPACE_REF,
        "key": RefKind(
            "API key", "API keys", ApiKey, lambda k: k.name or "", scope=None, names=("name",)
        ),
        "token": RefKind("token", "tokens", AccessToken, lambda t: t.prefix, scope=None),
        # Commands name a user by email; the kind is for the listings' short ids.
        "user": RefKind("user", "users", User, lambda u: u.email, scope=None, names=("email",)),
    }
    return kinds


def resolve(session: Session, kind_name: str | RefKind, scope: str | None, ref: str) -> str:
    """The whole id of the row `ref` names within `scope` (the workspace for most
    kinds, the style for its example posts, nothing for workspaces and keys)."""
    from socialgen.store.refs import find_id

    return find_id(session, kind(kind_name), scope, ref)


def resolve_in(
    engine: Engine, workspace_id: str, kind_name: str | RefKind, ref: str | None
) -> str | None:
    """An option's reference (--style, --conversation, --post) as a whole id; None
    (the option not given) and a blank value (taken as not given) stay as they are."""
    if ref is None or not ref.strip():
        return ref
    return resolve_each(engine, workspace_id, kind_name, [ref])[0]


def resolve_each(
    engine: Engine,
    workspace_id: str,
    kind_name: str | RefKind,
    refs: Iterable[str],
    *,
    keep_unknown: bool = False,
) -> list[str]:
    """Whole ids of `refs`; with `keep_unknown`, a ref that names nothing stays as
    given, for a service that reports every missing one at once (`batch
    --regenerate`, `posts publish --to` for a dry run's unconnected handles)."""
    from socialgen.kit.errors import NotFound
    from socialgen.store.engine import read_session

    found: list[str] = []
    with read_session(engine) as session:
        for ref in refs:
            try:
                found.append(resolve(session, kind_name, workspace_id, ref))
            except NotFound:
                if not keep_unknown:
                    raise
                found.append(ref)
    return found


def open_ref(workspace: str | None, kind_name: str | RefKind, ref: str) -> tuple[Engine, str, str]:
    """The store, the workspace the command acts on and the whole id `ref` names."""
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        return engine, workspace_id, resolve(session, kind_name, workspace_id, ref)


def shortener(engine: Engine, kind_name: str | RefKind, workspace_id: str | None) -> IdShortener:
    """Ids to the prefixes a table shows; asks the store only when called (a table
    is drawn), not for --json or piped rows, which show whole ids."""
    from socialgen.store.engine import read_session
    from socialgen.store.refs import short_ids

    def shorten(ids: list[str]) -> Mapping[str, str]:
        with read_session(engine) as session:
            return short_ids(session, kind(kind_name), workspace_id, ids)

    return shorten
