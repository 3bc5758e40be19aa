"""The views of social accounts, one shape for every face: the HTTP API's answers,
the CLI's --json and the MCP tools' results are these pydantic models (SPEC.md's
field names). None carries a secret."""

from __future__ import annotations

from pydantic import BaseModel


class AccountView(BaseModel):
    id: str
    network: str
    handle: str
    displayName: str
    email: str
    profileUrl: str
    serviceUrl: str
    createdAt: str | None


class IdentityView(BaseModel):  # whose the credentials are, as the network says now
    handle: str
    displayName: str
    profileUrl: str
    email: str


class CheckView(BaseModel):
    account: AccountView
    ok: bool
    identity: IdentityView


class RemovedView(BaseModel):
    account: AccountView
    queuedPublicationsRemoved: int


class HistorySummary(BaseModel):
    accountId: str
    fetched: int  # the account's posts the network showed (since `since`)
    created: int  # new published posts
    updated: int  # known posts with a new snapshot (their counts moved)
    skipped: int  # counts unchanged, no text to keep, already imported from a file
    complete: bool = True  # False: the pull's bounds stopped it; what it read is kept
    stopped: str | None = None  # why it stopped early (the deadline, the page cap ...)


class AccountListResponse(BaseModel):
    success: bool
    data: list[AccountView]


class AccountResponse(BaseModel):
    success: bool
    data: AccountView


class CheckResponse(BaseModel):
    success: bool
    data: CheckView


class HistoryResponse(BaseModel):
    success: bool
    data: HistorySummary


class RemovedResponse(BaseModel):
    success: bool
    message: str
    data: RemovedView
