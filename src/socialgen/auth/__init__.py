"""API keys, bearer tokens and workspace access.

`service.py` issues, lists, revokes and checks API keys and bearer tokens, over
`repository.py`'s queries; `secrets.py` makes the secrets (random, shown once, stored
only as SHA-256 hashes). The FastAPI guard over them, which checks a request's key and
its access to a workspace, is `http/guard.py`; the `key` and `token` commands are in
`admin/`.
"""
