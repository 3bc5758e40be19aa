"""Carousels: AI slides with images, rendered to a vector PDF."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="carousels",
    order=30,
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
    # Its MCP tools (and resources, prompts): carousels/mcp_tools.py.
    mcp=("socialgen.carousels.mcp_tools:register",),
)
