"""Running a team's socialgen: workspaces, users, members, API keys and tokens (the
commands of docs/admin.md). The rules live in `workspaces/` and `auth/`; this slice is
their command line, so those packages stay free of faces."""
