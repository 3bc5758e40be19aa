"""Workspaces, users and their roles (CLI only: the HTTP API acts inside one)."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="workspaces",
    order=40,
    groups=(
        ("workspace", "socialgen.workspaces.cli:workspace_app"),
        ("user", "socialgen.workspaces.cli:user_app"),
        ("member", "socialgen.workspaces.cli:member_app"),
    ),
)
