"""Issue, list, revoke and check API keys and bearer tokens. Never commits; the queries
are `repository.py`'s."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session

from socialgen.auth import repository
from socialgen.auth.secrets import (
    API_KEY_PREFIX,
    TOKEN_PREFIX,
    display_prefix,
    hash_secret,
    new_secret,
)
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest, NotAuthenticated, NotFound
from socialgen.kit.limits import MAX_TOKEN_DAYS
from socialgen.store.tables import AccessToken, ApiKey, User
from socialgen.workspaces.service import get_user_by_email

NOT_AUTHORIZED = "Not authorized to access this route"


def create_api_key(
    session: Session, *, name: str | None = None, workspace_id: str | None = None
) -> tuple[ApiKey, str]:
    """Returns the stored key and its secret; the secret is not kept anywhere."""
    secret = new_secret(API_KEY_PREFIX)
    key = ApiKey(
        name=(name or "").strip() or None,
        prefix=display_prefix(secret),
        key_hash=hash_secret(secret),
        workspace_id=workspace_id,
    )
    session.add(key)
    session.flush()
    return key, secret


def list_api_keys(session: Session) -> list[ApiKey]:
    return repository.api_keys(session)


def revoke_api_key(session: Session, key_id: str) -> ApiKey:
    key = session.get(ApiKey, key_id.strip())
    if key is None:
        raise NotFound(f"API key not found: {key_id}")
    if key.revoked_at is not None:
        raise BadRequest(f"API key {key.id} is already revoked")
    key.revoked_at = utcnow()
    session.add(key)
    session.flush()
    return key


def authenticate_api_key(session: Session, secret: str | None) -> ApiKey:
    if not secret or not secret.strip():
        raise NotAuthenticated("API key required: send it in the x-api-key header")
    key = repository.api_key_by_hash(session, hash_secret(secret.strip()))
    if key is None:
        raise NotAuthenticated("Invalid API key")
    if key.revoked_at is not None:
        raise NotAuthenticated("This API key has been revoked")
    return key


def create_token(session: Session, email: str, *, days: int) -> tuple[AccessToken, str, User]:
    if not 1 <= days <= MAX_TOKEN_DAYS:
        raise BadRequest(f"Token lifetime must be between 1 and {MAX_TOKEN_DAYS} days")
    user = get_user_by_email(session, email)
    secret = new_secret(TOKEN_PREFIX)
    now = utcnow()
    token = AccessToken(
        user_id=user.id,
        prefix=display_prefix(secret),
        token_hash=hash_secret(secret),
        created_at=now,
        expires_at=now + timedelta(days=days),
    )
    session.add(token)
    session.flush()
    return token, secret, user


def list_tokens(session: Session) -> list[tuple[AccessToken, User]]:
    return repository.tokens_with_users(session)


def revoke_token(session: Session, token_id: str) -> AccessToken:
    token = session.get(AccessToken, token_id.strip())
    if token is None:
        raise NotFound(f"Token not found: {token_id}")
    if token.revoked_at is not None:
        raise BadRequest(f"Token {token.id} is already revoked")
    token.revoked_at = utcnow()
    session.add(token)
    session.flush()
    return token


class TokenRejected(NotAuthenticated):
    """A bearer token that was sent but cannot be used; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(NOT_AUTHORIZED)
        self.reason = reason


def authenticate_token(session: Session, secret: str) -> User:
    row = repository.token_with_user_by_hash(session, hash_secret(secret))
    if row is None:
        raise TokenRejected("invalid token")
    token, user = row
    if token.revoked_at is not None:
        raise TokenRejected("token revoked")
    if token.expires_at <= utcnow():
        raise TokenRejected("token expired")
    return user
