"""What each network would receive for a post (`posts publish --dry-run`): the
adapter's prepared parts (thread split, facets, escaped text) without sending."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine

from socialgen.files.store import FileStore
from socialgen.kit.errors import NotFound
from socialgen.posts.service import get_post
from socialgen.publishing.accounts.service import get_account
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.followups.dryrun import add_followup_previews, post_followups
from socialgen.publishing.networks.base import OutgoingPost, PublishError
from socialgen.publishing.outbox.dryrun_unconnected import unconnected_networks, unconnected_preview
from socialgen.publishing.outbox.media import post_media
from socialgen.publishing.outbox.repository import of_post
from socialgen.publishing.outbox.service import idempotency_key
from socialgen.publishing.registry import Networks
from socialgen.store.engine import read_session
from socialgen.store.tables import SocialAccount


def dry_run(
    engine: Engine,
    workspace_id: str,
    post_id: str,
    account_refs: Sequence[str],
    *,
    number_parts: bool = False,
    unconnected: bool = False,
    networks: Networks,
    files: FileStore,
) -> list[dict[str, Any]]:
    """One preview per account. With `unconnected` (the CLI), a handle no account has
    is previewed for each network it may be on, with the command that connects it
    (dryrun_unconnected.py); without it (the HTTP API, MCP) it is a 404."""
    with read_session(engine) as session:
        post = get_post(session, workspace_id, post_id)
        accounts: list[SocialAccount | str] = []
        for ref in account_refs:
            try:
                accounts.append(get_account(session, workspace_id, ref))
            except NotFound:
                if not unconnected:
                    raise
                accounts.append(ref)
        existing = {p.account_id: p.id for p in of_post(session, post.id)}
        followups = post_followups(session, post.id)  # its first comment and plug
    media = post_media(engine, files, post)
    media_view = [
        {
            "kind": item.kind,
            "mimeType": item.mime_type,
            "bytes": len(item.data),
            "altText": item.alt_text,
            "title": item.title,
        }
        for item in media
    ]
    previews: list[dict[str, Any]] = []
    for account in accounts:
        if isinstance(account, str):
            names, handle = unconnected_networks(account)
            previews.extend(
                unconnected_preview(
                    network, handle, post.content, media_view, number_parts=number_parts
                )
                for network in names
            )
            continue
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
            "media": media_view,
        }
        try:
            prepared = build_adapter(networks, engine, account).prepare(outgoing)
            preview["parts"] = [
                {"text": part.text, "details": plain(part.details)} for part in prepared.parts
            ]
        except PublishError as error:
            preview["parts"] = []
            preview["error"] = error.message
        previews.append(preview)
    add_followup_previews(engine, previews, followups, accounts, networks)
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
