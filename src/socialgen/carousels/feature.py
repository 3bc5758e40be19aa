"""Carousels: AI slides with images, rendered to a vector PDF."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="carousels",
    order=30,
    # Declared once (carousels/operations.py): a route, an MCP tool; its own routes
    # (regenerate-slide, generate-pdf, templates) in carousels/api.py.
    operations=("socialgen.carousels.operations:CREATE_CAROUSEL",),
    routers=("socialgen.carousels.api:router",),
    groups=(
        Group(
            "carousel",
            "socialgen.carousels.cli:app",
            "Carousels: AI slides with images, rendered to a vector PDF.",
        ),
    ),
    streams="socialgen.carousels.streams:STREAMS",
    # Folders left by a killed process, removed when `serve` starts.
    serve_start=("socialgen.carousels.sweep:sweep_before_serving",),
    # Its MCP resource (the PDF): carousels/mcp_tools.py.
    mcp=("socialgen.carousels.mcp_tools:register",),
)
