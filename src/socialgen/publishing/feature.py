"""Social accounts, and posts published to them now or on time, with their metrics."""

from socialgen.registration import Feature, Group

FEATURE = Feature(
    name="publishing",
    order=70,
    routers=(
        "socialgen.publishing.accounts.api:router",
        "socialgen.publishing.outbox.api:router",
    ),
    groups=(
        Group(
            "accounts",
            "socialgen.publishing.accounts.cli:app",
            "Connect the social accounts posts are published to; bring their past posts in.",
        ),
    ),
    commands=(("publish-due", "socialgen.publishing.outbox.cli:publish_due"),),
    # posts publish, posts schedule --to, posts stats: the outbox's commands.
    extends=(("posts", "socialgen.publishing.outbox.cli:extend_posts_group"),),
    # Publishes due posts while `serve` runs (the `scheduler` setting, --no-scheduler).
    lifespans=("socialgen.publishing.outbox.scheduler:publishing_scheduler",),
)
