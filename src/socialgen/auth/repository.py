"""Queries over API keys and bearer tokens, for `service.py`. Every function takes the
caller's session and never commits. Keys and tokens are looked up store-wide (a key
is found by its secret before any workspace is known; an admin lists them all), so
nothing here is scoped to a workspace."""

from __future__ import annotations

from sqlmodel import Session, col, select

from socialgen.store.tables import AccessToken, ApiKey, User


def api_keys(session: Session) -> list[ApiKey]:
    """Every API key, revoked ones too, oldest first."""
    return list(session.exec(select(ApiKey).order_by(col(ApiKey.created_at))))


def api_key_by_hash(session: Session, key_hash: str) -> ApiKey | None:
    return session.exec(select(ApiKey).where(ApiKey.key_hash == key_hash)).first()


def tokens_with_users(session: Session) -> list[tuple[AccessToken, User]]:
    """Every bearer token with its user, revoked and expired ones too, oldest first."""
    statement = (
        select(AccessToken, User)
        .join(User, col(User.id) == col(AccessToken.user_id))
        .order_by(col(AccessToken.created_at))
    )
    return [(token, user) for token, user in session.exec(statement)]


def token_with_user_by_hash(session: Session, token_hash: str) -> tuple[AccessToken, User] | None:
    row = session.exec(
        select(AccessToken, User)
        .join(User, col(User.id) == col(AccessToken.user_id))
        .where(AccessToken.token_hash == token_hash)
    ).first()
    return None if row is None else (row[0], row[1])
