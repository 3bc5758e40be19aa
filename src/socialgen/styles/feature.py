"""Writing styles learned from example posts."""

from socialgen.registration import Feature, Group

FEATURE = Feature(
    name="styles",
    order=20,
    routers=("socialgen.styles.api:router",),
    groups=(
        Group("style", "socialgen.styles.cli:app", "Writing styles learned from example posts."),
    ),
)
