"""Social account rows, always scoped to one workspace: the queries `service.py`
builds on (which parses refs, encrypts secrets and raises the errors), and the count
`publishing/secrets.py` needs (across workspaces). A history pull's statements are in
repository_history.py. Every function takes the caller's session and never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, inspect
from sqlmodel import Session, col, select

from socialgen.store.tables import Publication, PublicationState, SocialAccount


def account_by_id(session: Session, workspace_id: str, account_id: str) -> SocialAccount | None:
    found = session.get(SocialAccount, account_id) if account_id else None
    return found if found is not None and found.workspace_id == workspace_id else None


def account_by_handle(
    session: Session, workspace_id: str, network: str, handle: str
) -> SocialAccount | None:
    """The account with exactly this network and handle."""
    return session.exec(
        select(SocialAccount).where(
            SocialAccount.workspace_id == workspace_id,
            SocialAccount.network == network,
            SocialAccount.handle == handle,
        )
    ).first()


def accounts_named(
    session: Session, workspace_id: str, lowered_handles: Sequence[str], network: str | None
) -> list[SocialAccount]:
    """The accounts whose handle, lowercased, is one of `lowered_handles` (on
    `network` unless it is None)."""
    statement = select(SocialAccount).where(
        SocialAccount.workspace_id == workspace_id,
        func.lower(SocialAccount.handle).in_(list(lowered_handles)),
    )
    if network is not None:
        statement = statement.where(SocialAccount.network == network)
    return list(session.exec(statement).all())


def workspace_accounts(session: Session, workspace_id: str) -> list[SocialAccount]:
    statement = (
        select(SocialAccount)
        .where(SocialAccount.workspace_id == workspace_id)
        .order_by(col(SocialAccount.network), col(SocialAccount.handle))
    )
    return list(session.exec(statement).all())


def queued_count(session: Session, account_id: str) -> int:
    """How many publications wait to go out through this account."""
    statement = (
        select(func.count())
        .select_from(Publication)
        .where(
            Publication.account_id == account_id,
            Publication.state == PublicationState.QUEUED,
        )
    )
    return int(session.exec(statement).one())


def encrypted_count(session: Session) -> int:
    """How many accounts, in every workspace, hold an encrypted secret (0 in a store
    whose tables are not made yet)."""
    if not inspect(session.connection()).has_table(str(SocialAccount.__tablename__)):
        return 0
    statement = (
        select(func.count())
        .select_from(SocialAccount)
        .where(col(SocialAccount.secret_ciphertext) != "")
    )
    return int(session.exec(statement).one())
