"""Workspaces, users, memberships and per-workspace usage.

`service.py` keeps workspaces, users and memberships; `bootstrap.py` makes the first-run
defaults (a default workspace and a local owner). The post quota is `usage.py`'s
(reserve before generating, give back what failed), reconciled by `quota_reconcile.py`,
which gives back what processes reserved and did not live to give back, at every open
and, while `serve` runs, every half lease (`quota_upkeep.py`, the admin feature's
lifespan).

Every query is in a repository: `repository.py` (workspaces, users, members, owners, and
what faces and plans need: every workspace's quota row, a user by id) and
`repository_quota.py` (the quota's atomic UPDATEs, the ledger's rows locked, abandoned
reservations and lapsed leases). Their commands are in `admin/`.
"""
