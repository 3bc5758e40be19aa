"""What a row of an import brings besides its content, status, dates and counts: the
fields a `posts export` backup carries so that reading it back keeps them.

- `media` (`has_media`): whether the post carried an image, a carousel or an
  infographic: `true`/`false` (also `yes`/`no`, `1`/`0`; empty is false; an
  http(s) address of the media is true), a JSON boolean. Kept for published posts,
  whose history insights read (a post with media against one without); the media
  files themselves are not in a file of posts.
- `variation` (`variationName`): the batch variation that wrote the post.
- `account_name`, `account_email` (CSV), or `socialAccount` {name, email} (JSON): the
  account it went out through.

Keys are compared lower-cased (posts/imports.py lower-cases them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from socialgen.kit.errors import BadRequest
from socialgen.kit.text_check import text_problem

# Post.variation_name, Post.social_account_name, Post.social_account_email
MAX_VARIATION_CHARS = 64
MAX_ACCOUNT_NAME_CHARS = 200
MAX_ACCOUNT_EMAIL_CHARS = 320

_MEDIA_KEYS = ("media", "hasmedia", "has_media")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0", ""})


@dataclass(frozen=True, slots=True)
class RowFields:
    media: bool = False
    variation: str | None = None
    account_name: str | None = None
    account_email: str | None = None


NO_FIELDS = RowFields()


def row_fields(record: Mapping[str, Any]) -> RowFields:
    """The row's fields, or a BadRequest naming the one at fault."""
    account = record.get("socialaccount")
    if account == "":  # an empty CSV cell
        account = None
    if account is not None and not isinstance(account, Mapping):
        raise BadRequest("socialAccount must be an object with name and email")
    account = {str(key).lower(): value for key, value in (account or {}).items()}
    name_keys, email_keys = ("account_name", "accountname"), ("account_email", "accountemail")
    return RowFields(
        media=_media(record),
        variation=_text(record, ("variation", "variationname", "variation_name"), "variation"),
        account_name=_text(record, name_keys, "account_name", MAX_ACCOUNT_NAME_CHARS)
        or _text(account, ("name",), "socialAccount.name", MAX_ACCOUNT_NAME_CHARS),
        account_email=_text(record, email_keys, "account_email", MAX_ACCOUNT_EMAIL_CHARS)
        or _text(account, ("email",), "socialAccount.email", MAX_ACCOUNT_EMAIL_CHARS),
    )


def _media(record: Mapping[str, Any]) -> bool:
    for key in _MEDIA_KEYS:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool):
            return value
        text = value.strip().lower() if isinstance(value, str) else None
        if text is not None and text in _TRUE | _FALSE:
            return text in _TRUE
        if text is not None and text.startswith(("https://", "http://")):
            return True  # a file that lists the media's address: the post had media
        raise BadRequest(f"media must be true or false (got {value!r})")
    return False


def _text(
    record: Mapping[str, Any],
    keys: tuple[str, ...],
    name: str,
    limit: int = MAX_VARIATION_CHARS,
) -> str | None:
    """The first non-empty value among `keys`, checked as text of at most `limit`
    characters without control characters."""
    for key in keys:
        value = record.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise BadRequest(f"{name} must be text, not {type(value).__name__}")
        text = value.strip()
        if not text:
            continue
        if (problem := text_problem(text, name)) is not None:
            raise BadRequest(problem)
        if len(text) > limit:
            raise BadRequest(f"{name} is longer than {limit} characters")
        return text
    return None
