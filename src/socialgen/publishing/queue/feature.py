"""The posting queue: weekly slots, and posts put in the next free one."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="queue",
    order=72,  # after the outbox (71): a queued post is the outbox's scheduled post
    routers=("socialgen.publishing.queue.api:router",),
    groups=(
        Group(
            "queue",
            "socialgen.publishing.queue.cli:app",
            "Your posting slots and what goes out when: posts queue ID fills the next free slot.",
        ),
    ),
    # posts queue ID: put a post in the next free slot.
    extends=(("posts", "socialgen.publishing.queue.posts_cli:extend_posts_group"),),
    # Its MCP tools: publishing/queue/mcp_tools.py.
    mcp=("socialgen.publishing.queue.mcp_tools:register",),
)
