"""Social accounts: connecting one, its past posts brought in."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="accounts",
    order=70,
    routers=("socialgen.publishing.accounts.api:router",),
    groups=(
        Group(
            "accounts",
            "socialgen.publishing.accounts.cli:app",
            "Connect the social accounts posts are published to; bring their past posts in.",
        ),
    ),
    # Its MCP tools (and resources, prompts): publishing/accounts/mcp_tools.py.
    mcp=("socialgen.publishing.accounts.mcp_tools:register",),
)
