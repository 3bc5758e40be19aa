"""Stored files: carousel images, PDFs and thumbnails."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="files",
    order=60,
    routers=("socialgen.files.api:router",),
    groups=(
        Group(
            "files",
            "socialgen.files.cli:app",
            "Stored files: carousel images, PDFs and thumbnails.",
        ),
    ),
)
