"""Workspaces, users, roles, API keys and bearer tokens; this installation's settings
and provider keys (CLI only: the HTTP API acts inside a workspace)."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="admin",
    order=40,
    groups=(
        ("workspace", "socialgen.admin.cli:workspace_app"),
        ("user", "socialgen.admin.cli:user_app"),
        ("member", "socialgen.admin.cli:member_app"),
        ("key", "socialgen.admin.keys_cli:key_app"),
        ("token", "socialgen.admin.keys_cli:token_app"),
        ("config", "socialgen.admin.config_cli:app"),
        ("provider-key", "socialgen.admin.provider_keys_cli:app"),
        ("models", "socialgen.admin.models_cli:app"),
    ),
)
