"""Carousels: AI slides with images, rendered to a vector PDF."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="carousels",
    order=30,
    routers=("socialgen.carousels.api:router",),
    groups=(("carousel", "socialgen.carousels.cli:app"),),
    streams="socialgen.carousels.streams:STREAMS",
)
