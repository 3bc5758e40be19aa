"""Evergreen reposts: a published post goes out again every N days as a fresh
variation the model writes from it, through the outbox."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="evergreen",
    order=72,  # after the outbox (71): its routes follow the outbox's in /openapi.json
    routers=("socialgen.publishing.evergreen.api:router",),
    extends=(
        ("posts", "socialgen.publishing.evergreen.cli:extend_posts_group"),
        ("insights", "socialgen.publishing.evergreen.candidates_cli:extend_insights_group"),
    ),
    # Writes the runs due within a day while `serve` runs (off with the scheduler).
    lifespans=("socialgen.publishing.evergreen.scheduler:evergreen_preparer",),
    mcp=("socialgen.publishing.evergreen.mcp_tools:register",),
)
