"""Social accounts: connecting one, naming one, and bringing its past posts in.

`service.py` connects, stores, finds, checks and removes a workspace's accounts, over
`repository.py`'s queries; secrets are encrypted by `publishing/secrets.py`. `refs.py`
is how the CLI names an account: handle first (with or without its @, in any case, or
`network:handle`), then display name or a unique id prefix.

An account's past posts, with their counts, are pulled from its network by `history.py`
and written in bulk by `history_rows.py`, over `repository_history.py`'s statements: the
account's row held, its publications found by remote id, their latest counts, the counts
written back in bulk.

`schemas.py` holds the views: pydantic models, one shape for the API, `--json` and the
MCP tools; none carries a secret. The faces are `api.py`, `cli.py`
(`socialgen accounts`, taking a secret through `secret_input_cli.py`) and the MCP tool
list_accounts (`mcp_tools.py`), declared in `feature.py` with the `accounts` command
group.
"""
