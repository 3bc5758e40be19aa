"""What each network would receive for a post (`posts publish --dry-run`): the
adapter's prepared parts (thread split, facets, escaped text) without sending."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine
from sqlmodel import col, select

from socialgen.posts.service import get_post
from socialgen.publishing.accounts import get_account
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.media import post_media
from socialgen.publishing.networks.base import OutgoingPost, PublishError
from socialgen.publishing.outbox import idempotency_key
from socialgen.store.engine import read_session
from socialgen.store.tables import Publication


def dry_run(
    engine: Engine,
    workspace_id: str,
    post_id: str,
    account_refs: Sequence[str],
    *,
    number_parts: bool = False,
) -> list[dict[str, Any]]:
    with read_session(engine) as session:
        post = get_post(session, workspace_id, post_id)
        accounts = [get_account(session, workspace_id, ref) for ref in account_refs]
        existing = {
            p.account_id: p.id
            for p in session.exec(select(Publication).where(col(Publication.post_id) == post.id))
        }
    media = post_media(engine, post)
    previews: list[dict[str, Any]] = []
    for account in accounts:
        # The key the real publication has (or would have): the preview is faithful.
        publication_id = existing.get(account.id, f"dry-run-{post.id}-{account.id}")
        outgoing = OutgoingPost(
            publication_id=publication_id,
            idempotency_key=idempotency_key(publication_id),
            text=post.content,
            media=media,
            number_parts=number_parts,
        )
        preview: dict[str, Any] = {
            "accountId": account.id,
            "account": account.handle,
            "network": account.network,
            "numberParts": number_parts,
            "media": [
                {
                    "kind": item.kind,
                    "mimeType": item.mime_type,
                    "bytes": len(item.data),
                    "altText": item.alt_text,
                    "title": item.title,
                }
                for item in media
            ],
        }
        try:
            prepared = build_adapter(engine, account).prepare(outgoing)
            preview["parts"] = [
                {"text": part.text, "details": plain(part.details)} for part in prepared.parts
            ]
        except PublishError as error:
            preview["parts"] = []
            preview["error"] = error.message
        previews.append(preview)
    return previews


def plain(value: Any) -> Any:
    """JSON-safe: details may hold bytes or client objects; they are shown, not kept."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
