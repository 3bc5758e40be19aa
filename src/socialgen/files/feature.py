"""Stored files: carousel images, PDFs and thumbnails."""

from socialgen.registration import Feature

FEATURE = Feature(
    name="files",
    order=60,
    routers=("socialgen.files.api:router",),
    groups=(("files", "socialgen.files.cli:app"),),
)
