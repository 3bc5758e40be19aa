"""Writing styles learned from example posts."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="styles",
    order=20,
    routers=("socialgen.styles.api:router",),
    groups=(("style", "socialgen.styles.cli:app"),),
)
