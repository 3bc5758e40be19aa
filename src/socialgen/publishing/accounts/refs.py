"""How the CLI names a social account: as the publishing services do (whole id,
handle with or without its @ in any case, `network:handle`), then by display name
in any case or by a unique id prefix (store/refs.py, cli.refs.py)."""

from __future__ import annotations

from sqlmodel import Session

from socialgen.kit.errors import NotFound
from socialgen.publishing.accounts.service import get_account
from socialgen.store.refs import RefKind
from socialgen.store.tables import SocialAccount


def _by_handle(session: Session, workspace_id: str | None, ref: str) -> str | None:
    try:
        return get_account(session, workspace_id or "", ref).id
    except NotFound:
        return None  # a display name or an id prefix, perhaps


ACCOUNT_REF = RefKind(
    "social account",
    "social accounts",
    SocialAccount,
    lambda a: f"{a.network}:{a.handle}  {a.display_name}".rstrip(),
    names=("display_name",),
    first=_by_handle,
)
