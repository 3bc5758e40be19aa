"""Which networks a preview shows, and why those.

Asked (`--to`, `to=`): each ref names a connected account (id, handle,
network:handle, as `posts publish --to`), or is a bare network name: "my account
there" when the workspace has exactly one, else the network alone (its rules are the
same for every account, offline). Not asked: the accounts the post is scheduled to
(or went to), else every connected account, else every network socialgen publishes
to, and the preview says which it took.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from socialgen.kit.errors import BadRequest, NotFound
from socialgen.publishing.accounts.service import get_account, list_accounts
from socialgen.publishing.outbox.repository import with_accounts
from socialgen.publishing.preview.schemas import ChosenBy
from socialgen.publishing.registry import BUILT_IN
from socialgen.store.tables import SocialAccount

MAX_TARGETS = 20  # as many accounts as a publish names (outbox MAX_ACCOUNTS)


@dataclass(frozen=True)
class Target:
    network: str
    account: SocialAccount | None = None

    @property
    def key(self) -> str:
        return self.account.id if self.account is not None else self.network


@dataclass(frozen=True)
class Chosen:
    targets: list[Target]
    by: ChosenBy
    note: str


def choose(session: Session, workspace_id: str, post_id: str, refs: Sequence[str]) -> Chosen:
    asked = [ref.strip() for ref in refs if ref.strip()]
    if len(asked) > MAX_TARGETS:
        raise BadRequest(f"Name at most {MAX_TARGETS} accounts or networks to preview")
    if asked:
        return Chosen(_unique(_named(session, workspace_id, ref) for ref in asked), "asked", "")
    rows = with_accounts(session, post_id)
    if rows:
        accounts = sorted((account for _, account in rows), key=_order)
        return Chosen(
            _unique(Target(a.network, a) for a in accounts),
            "publications",
            "The accounts the post is scheduled to or went out to.",
        )
    connected = sorted(list_accounts(session, workspace_id), key=_order)
    if connected:
        return Chosen(
            _unique(Target(a.network, a) for a in connected),
            "accounts",
            "Every connected account: the post is not scheduled to any yet.",
        )
    return Chosen(
        [Target(network) for network in BUILT_IN],
        "networks",
        "No account is connected: every network socialgen publishes to, by its own rules.",
    )


def _named(session: Session, workspace_id: str, ref: str) -> Target:
    network = ref.lower()
    try:
        account = get_account(session, workspace_id, ref)
    except NotFound:
        if network not in BUILT_IN:
            raise NotFound(
                f"No social account {ref!r} in this workspace, and no network of that name "
                f"({', '.join(BUILT_IN)}): see `socialgen accounts list`"
            ) from None
        return Target(network)
    except BadRequest:
        if network not in BUILT_IN:
            raise  # several accounts answer to that name: the message names them
        return Target(network)  # several accounts there: the network's rules alone
    return Target(account.network, account)


def _order(account: SocialAccount) -> tuple[int, str]:
    place = BUILT_IN.index(account.network) if account.network in BUILT_IN else len(BUILT_IN)
    return place, account.handle.lower()


def _unique(targets: Iterable[Target]) -> list[Target]:
    seen: dict[str, Target] = {}
    for target in targets:
        seen.setdefault(target.key, target)
    return list(seen.values())
