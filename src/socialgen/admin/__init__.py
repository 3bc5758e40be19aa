"""Running socialgen: workspaces, users, members, API keys and tokens (docs/admin.md),
the config file and provider keys (docs/config.md), the stored files (docs/files.md).
The rules live in `workspaces/`, `auth/`, `config/` and `files/`; this slice is their
command line (and the files' route), so those packages stay free of faces (which would
import the face helpers that import them back).

The commands: `workspace`, `user` and `member` (`cli.py`), `key` and `token`
(`keys_cli.py`), `config` (`config_cli.py`), `provider-key` (`provider_keys_cli.py`) and
`models` (`models_cli.py`, over `ai/`'s local models), `files` (`files_cli.py`), and
`GET /api/v1/files/...` (`files_api.py`), declared in `feature.py`.
"""
