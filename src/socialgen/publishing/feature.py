"""Social accounts, and posts published to them now or on time, with their metrics."""

from socialgen.registration import Feature, Group

FEATURE = Feature(
    name="publishing",
    order=70,
    routers=(
        "socialgen.publishing.accounts_api:router",
        "socialgen.publishing.publish_api:router",
    ),
    groups=(
        Group(
            "accounts",
            "socialgen.publishing.accounts_cli:app",
            "Connect the social accounts posts are published to; bring their past posts in.",
        ),
    ),
    commands=(("publish-due", "socialgen.publishing.publish_cli:publish_due"),),
    # posts publish, posts schedule --to, posts stats: the outbox's commands.
    extends=(("posts", "socialgen.publishing.publish_cli:extend_posts_group"),),
    # Publishes due posts while `serve` runs (the `scheduler` setting, --no-scheduler).
    lifespans=("socialgen.publishing.scheduler:publishing_scheduler",),
)
