"""Workspaces, users, roles, API keys and bearer tokens; this installation's settings
and provider keys (CLI only: the HTTP API acts inside a workspace)."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="admin",
    order=40,
    # Stored files served to members of their workspace (the file store is files/).
    routers=("socialgen.admin.files_api:router",),
    groups=(
        Group(
            "workspace",
            "socialgen.admin.cli:workspace_app",
            "Create and list workspaces; set their post quota.",
        ),
        Group("user", "socialgen.admin.cli:user_app", "Create and list users."),
        Group(
            "member",
            "socialgen.admin.cli:member_app",
            "Give users a role in a workspace, or take it away.",
        ),
        Group(
            "key",
            "socialgen.admin.keys_cli:key_app",
            "API keys for the HTTP API (x-api-key header).",
        ),
        Group(
            "token",
            "socialgen.admin.keys_cli:token_app",
            "Bearer tokens that identify users to the HTTP API.",
        ),
        Group(
            "config",
            "socialgen.admin.config_cli:app",
            "Read and change settings in the config file (config.toml).",
        ),
        Group(
            "provider-key",
            "socialgen.admin.provider_keys_cli:app",
            "Store AI provider API keys (OpenAI, Anthropic, Gemini ...) for litellm.",
        ),
        Group(
            "files",
            "socialgen.admin.files_cli:app",
            "Stored files: carousel images, PDFs and thumbnails.",
        ),
        Group(
            "models",
            "socialgen.admin.models_cli:app",
            "Text models: list what can write, pull a better local one.",
        ),
    ),
    # Abandoned quota given back while `serve` runs, before the other features' work
    # (the lowest order of any feature with a lifespan).
    lifespans=("socialgen.workspaces.quota_upkeep:quota_upkeep",),
)
