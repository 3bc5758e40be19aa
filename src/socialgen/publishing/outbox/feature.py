"""The outbox: posts published to social accounts now or on time, with their metrics."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="outbox",
    order=71,  # after accounts (70): its routes follow theirs in /openapi.json
    routers=("socialgen.publishing.outbox.api:router",),
    commands=(("publish-due", "socialgen.publishing.outbox.cli:publish_due"),),
    # posts publish, posts schedule --to, posts stats: the outbox's commands.
    extends=(("posts", "socialgen.publishing.outbox.cli:extend_posts_group"),),
    # Publishes due posts while `serve` runs (the `scheduler` setting, --no-scheduler).
    lifespans=("socialgen.publishing.outbox.scheduler:publishing_scheduler",),
    # Its MCP tools (and resources, prompts): publishing/outbox/mcp_tools.py.
    mcp=("socialgen.publishing.outbox.mcp_tools:register",),
)
