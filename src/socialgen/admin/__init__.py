"""Running socialgen: workspaces, users, members, API keys and tokens (docs/admin.md),
the config file and provider keys (docs/config.md). The rules live in `workspaces/`,
`auth/` and `config/`; this slice is their command line, so those packages stay free
of faces (which would import the face helpers that import them back)."""
