"""Social accounts of a workspace: connect, store (secret encrypted), find, check, remove.

Functions taking a `Session` never commit (the caller's transaction does). Those that
talk to a network (`connect_account`, `authorize_account`, `check_account`) take no
session: they run outside any transaction, since a network call can take seconds and
an adapter may save a refreshed secret in its own transaction meanwhile (on SQLite a
write transaction held around it would wait on itself).

Secrets never leave this module in the clear except to an adapter: views carry no
secret, and a network's error message is scrubbed of the secret before it is shown.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.orm import object_session
from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound, SocialgenError
from socialgen.kit.text_check import secret_problem
from socialgen.publishing.accounts import repository
from socialgen.publishing.accounts.schemas import AccountView, CheckView, IdentityView
from socialgen.publishing.networks.base import (
    AccountCredentials,
    AccountIdentity,
    Connected,
    PublishError,
    SecretSaver,
)
from socialgen.publishing.registry import Networks
from socialgen.publishing.secrets import SecretKeys, decrypt_secret, encrypt_secret
from socialgen.sources.guard import check_url
from socialgen.store.engine import transaction
from socialgen.store.tables import SocialAccount

logger = logging.getLogger("socialgen.publishing")

ACCOUNT_NOT_FOUND = "Social account not found: {ref}"
MAX_HANDLE = 320
MAX_SERVICE_URL = 2048
MAX_SECRET_CHARS = 4096
# Networks whose secret travels as an HTTP header value (a bearer token) or in a URL
# (a bot token, a webhook), which must be printable ASCII, as a Nostr key (bech32) is;
# a Bluesky app password travels in a JSON body.
HEADER_SECRETS = frozenset(
    {"mastodon", "linkedin", "x", "threads", "pixelfed", "telegram", "discord", "nostr"}
)
# Secret values shorter than this are not scrubbed from messages: "1" would mangle them.
MIN_SCRUBBED = 4


class NetworkRefused(SocialgenError):
    """The network said no (credentials refused, bad request): the caller must act."""

    status_code = 400


class NetworkUnavailable(SocialgenError):
    """The network could not be reached or failed (5xx, timeout): try again later."""

    status_code = 502


# --- the store --------------------------------------------------------------------


def add_account(
    session: Session,
    workspace_id: str,
    network: str,
    connected: Connected,
    *,
    networks: Networks,
) -> SocialAccount:
    """Store the account, or, when this workspace already has it (same network and
    handle), reconnect it: new secret and profile, same id, its publications kept."""
    network = _known(networks, network)
    identity = connected.identity
    handle = identity.handle.strip()
    if not handle or len(handle) > MAX_HANDLE:
        raise BadRequest(f"{network} gave an unusable account handle")
    account = repository.account_by_handle(session, workspace_id, network, handle)
    if account is None:
        account = SocialAccount(
            workspace_id=workspace_id,
            network=network,
            handle=handle,
            service_url=connected.service_url,
            secret_ciphertext="",
        )
    account.display_name = identity.display_name[:200]
    account.email = identity.email[:320]
    account.profile_url = identity.profile_url[:2048]
    account.service_url = connected.service_url
    account.secret_ciphertext = encrypt_secret(connected.secret, session, networks.keys)
    account.updated_at = utcnow()
    session.add(account)
    session.flush()
    logger.info("social account %s connected: %s %s", account.id, network, handle)
    return account


def list_accounts(session: Session, workspace_id: str) -> list[SocialAccount]:
    return repository.workspace_accounts(session, workspace_id)


def get_account(session: Session, workspace_id: str, ref: str) -> SocialAccount:
    """By id, by handle (with or without its leading @, any case), `network:handle`, or
    a network's name for the one account there; only in this workspace. Two networks
    with one handle need the `network:` form; two accounts on one network, the handle."""
    ref = ref.strip()
    by_id = repository.account_by_id(session, workspace_id, ref)
    if by_id is not None:
        return by_id
    prefix, colon, rest = ref.partition(":")
    # `network:handle` first; a LinkedIn handle is a URN ("urn:li:person:..."), so a
    # prefix that names no account's network is part of the handle.
    matches = _by_handle(session, workspace_id, rest, prefix.strip().lower()) if colon else []
    if not matches:
        matches = _by_handle(session, workspace_id, ref, None)
    if not matches:  # `--to linkedin`: "my account on it" (a handle of that name first)
        matches = [a for a in list_accounts(session, workspace_id) if a.network == ref.lower()]
    if len(matches) > 1:
        named = ", ".join(f"{m.network}:{m.handle}" for m in matches)
        raise BadRequest(f"Several accounts are called {ref}: name one of {named}")
    if not matches:
        raise NotFound(ACCOUNT_NOT_FOUND.format(ref=ref))
    return matches[0]


def queued_publications(session: Session, account_id: str) -> int:
    """How many publications wait to go out through this account."""
    return repository.queued_count(session, account_id)


def remove_account(session: Session, workspace_id: str, ref: str) -> SocialAccount:
    """Delete the account; the database deletes its publications (and their metric
    snapshots) with it, queued ones included: call `queued_publications` first to say
    how many."""
    account = get_account(session, workspace_id, ref)
    session.delete(account)
    session.flush()
    logger.info("social account %s removed", account.id)
    return account


def credentials_for(account: SocialAccount, keys: SecretKeys) -> AccountCredentials:
    """The account's credentials, its secret decrypted with `keys` (the Runtime's:
    `networks.keys`)."""
    return AccountCredentials(
        network=account.network,
        service_url=account.service_url,
        handle=account.handle,
        secret=decrypt_secret(account.secret_ciphertext, keys, _session_of(account)),
    )


def secret_saver(engine: Engine, account_id: str, keys: SecretKeys) -> SecretSaver:
    """For an adapter that refreshed its session or token: store the new secret at
    once, in a short transaction of its own (the refresh token it replaces may
    already be spent on the network's side), encrypted with `keys` (the Runtime's)."""

    def save(fields: dict[str, str]) -> None:
        with transaction(engine) as session:
            account = session.get(SocialAccount, account_id)
            if account is None:  # removed meanwhile: nothing to keep
                return
            account.secret_ciphertext = encrypt_secret(fields, session, keys)
            account.updated_at = utcnow()
            session.add(account)

    return save


def _session_of(account: SocialAccount) -> Session | None:
    """The session the account was read in, while it is open: its store can say how
    many accounts a missing key file holds (publishing/secrets.py)."""
    session = object_session(account)
    return session if isinstance(session, Session) else None


def account_view(account: SocialAccount) -> AccountView:
    """The account as every face shows it: never its secret."""
    return AccountView(
        id=account.id,
        network=account.network,
        handle=account.handle,
        displayName=account.display_name,
        email=account.email,
        profileUrl=account.profile_url,
        serviceUrl=account.service_url,
        createdAt=iso(account.created_at),
    )


def check_view(account: SocialAccount, identity: AccountIdentity) -> CheckView:
    """A check that passed: the account, and whose the network says it is."""
    return CheckView(
        account=account_view(account),
        ok=True,
        identity=IdentityView(
            handle=identity.handle,
            displayName=identity.display_name,
            profileUrl=identity.profile_url,
            email=identity.email,
        ),
    )


# --- the networks -----------------------------------------------------------------


def service_url_for(networks: Networks, network: str, given: str | None) -> str:
    """The service the account lives on: the one given (a bare host means https) or
    the network's default, normalised and passed through the SSRF guard."""
    module = networks.module(network)
    url = (given or "").strip() or getattr(module, "DEFAULT_SERVICE_URL", "")
    if not url:
        raise BadRequest(f"Name the {_known(networks, network)} server: its URL is required")
    own_rule = getattr(module, "checked_service_url", None)
    if callable(own_rule):  # not one http(s) URL: a Nostr account's relays
        checked: str = own_rule(url, allow_private=networks.settings.allow_private_urls)
        return checked
    if "://" not in url:
        url = "https://" + url
    return check_url(url.rstrip("/"), allow_private=networks.settings.allow_private_urls)


def recheck_service(networks: Networks, account: SocialAccount) -> None:
    """The SSRF guard again on a stored account's service (DNS answers change), by the
    network's own rule where it has one (a Nostr account's relays)."""
    service_url_for(networks, account.network, account.service_url)


def connect_account(
    networks: Networks,
    network: str,
    service_url: str | None,
    handle: str,
    secret: str,
    *,
    secret_name: str = "secret",
) -> Connected:
    """The non-interactive way in (an app password or an access token), verified by
    the network. Raises NetworkRefused / NetworkUnavailable in the network's words.
    Every field is checked before anything is sent; `secret_name` is what the caller
    calls the secret in its messages ("secret" in the HTTP API's body). `networks`:
    the Runtime's, which module speaks for each network."""
    name = _known(networks, network)
    secret = secret.strip()
    if not secret:
        raise BadRequest("The app password or access token is empty")
    check_secret(name, secret, secret_name)
    handle = handle.strip()
    if name == "bluesky" and not handle:
        raise BadRequest("A Bluesky handle is required (e.g. you.bsky.social)")
    check_field("handle", handle, MAX_HANDLE)
    if service_url is not None:
        check_field("serviceUrl", service_url, MAX_SERVICE_URL)
    if name == "linkedin" and (service_url or "").strip():
        # The token goes wherever the service URL points: LinkedIn has one API.
        raise BadRequest(
            "serviceUrl cannot be set for LinkedIn: leave it out "
            f"(LinkedIn's API is {getattr(networks.module(name), 'DEFAULT_SERVICE_URL', '')})"
        )
    url = service_url_for(networks, name, service_url)
    module = networks.module(name)
    with network_errors(name, [secret]):
        return module.connect(url, handle, secret, settings=networks.settings)


def check_secret(network: str, secret: str, secret_name: str = "secret") -> None:
    """A 400 naming the field when `secret` could not be sent as it is: too long, a
    control character (CR/LF), or non-ASCII where it travels in an HTTP header."""
    if len(secret) > MAX_SECRET_CHARS:
        raise BadRequest(f"{secret_name} must be at most {MAX_SECRET_CHARS} characters")
    problem = secret_problem(secret, ascii_only=network in HEADER_SECRETS)
    if problem:
        raise BadRequest(f"{secret_name} {problem}")


def check_field(field: str, value: str, limit: int) -> None:
    """A text field of an account (handle, service URL) within its documented limit
    and on one line, or a 400 naming it."""
    if len(value) > limit:
        raise BadRequest(f"{field} must be at most {limit} characters ({len(value)} given)")
    problem = secret_problem(value, ascii_only=False)
    if problem:
        raise BadRequest(f"{field} {problem.split(';')[0]}")


def authorize_account(
    networks: Networks,
    network: str,
    service_url: str | None,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
) -> Connected:
    """The interactive OAuth way in (Mastodon, LinkedIn) through a loopback redirect."""
    for key in ("client_id", "client_secret"):  # a form field and a query parameter
        problem = secret_problem(options.get(key) or "", ascii_only=False)
        if problem:
            raise BadRequest(f"The {key.replace('_', ' ')} {problem}")
    url = service_url_for(networks, network, service_url)
    module = networks.module(network)
    if not hasattr(module, "authorize"):
        raise BadRequest(
            f"{_known(networks, network)} has no browser sign-in: give the secret instead"
        )
    with network_errors(network, options.values()):
        return module.authorize(
            url,
            options,
            open_browser=open_browser,
            announce=announce,
            settings=networks.settings,
        )


def check_account(networks: Networks, engine: Engine, account: SocialAccount) -> AccountIdentity:
    """Ask the network who the stored credentials belong to. Call it outside any
    transaction (see the module's note)."""
    recheck_service(networks, account)
    credentials = credentials_for(account, networks.keys)
    module = networks.module(account.network)
    with network_errors(account.network, credentials.secret.values()):
        adapter = module.build(
            credentials,
            secret_saver(engine, account.id, networks.keys),
            settings=networks.settings,
        )
        return adapter.check()


@contextmanager
def network_errors(network: str, secrets: Iterable[str]) -> Iterator[None]:
    """Turn what a network module raises into domain errors without the secret."""
    values = list(secrets)
    try:
        yield
    except SocialgenError:
        raise  # BadRequest from the module, guard refusals: as they are
    except PublishError as error:
        message = scrub(error.message, values)
        if error.reconnect:
            hint = (
                ""  # the adapter already says how to reconnect
                if "accounts add" in message
                else f". Reconnect the account: socialgen accounts add {network} ..."
            )
            raise NetworkRefused(f"{network} refused the credentials: {message}{hint}") from None
        if error.retryable or error.outcome_unknown:
            raise NetworkUnavailable(f"{network} is unavailable: {message}") from None
        raise NetworkRefused(f"{network} refused: {message}") from None
    except Exception as error:
        # Not the contract's error: name its kind only, as its text may hold a URL
        # with a token in it.
        logger.warning("%s network call failed: %s", network, type(error).__name__)
        raise NetworkUnavailable(
            f"Could not talk to {network}: the connection failed unexpectedly "
            "(the server log has the details)"
        ) from None


def scrub(message: str, secrets: Iterable[str]) -> str:
    """`message` with every secret value in it replaced by ***."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= MIN_SCRUBBED:
            message = message.replace(secret, "***")
    return message


def _known(networks: Networks, network: str) -> str:
    name = network.strip().lower()
    if name not in networks.known():
        raise BadRequest(f"Unknown network {network!r}: use one of {', '.join(networks.known())}")
    return name


def _by_handle(
    session: Session, workspace_id: str, handle: str, network: str | None
) -> list[SocialAccount]:
    if not handle.strip():
        return []
    return repository.accounts_named(session, workspace_id, _handle_forms(handle), network)


def _handle_forms(handle: str) -> list[str]:
    bare = handle.strip().lstrip("@").lower()
    return [bare, "@" + bare]
