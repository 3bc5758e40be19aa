"""Posts written by the model: chat, post and batch, in the terminal and over HTTP."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="generation",
    order=0,
    routers=("socialgen.generation.api:router",),
    commands=(
        ("chat", "socialgen.generation.cli:chat"),
        ("post", "socialgen.generation.cli:post"),
        ("batch", "socialgen.generation.cli:batch"),
    ),
    streams="socialgen.generation.streams:STREAMS",
    # Its MCP tools (and resources, prompts): generation/mcp_tools.py.
    mcp=("socialgen.generation.mcp_tools:register",),
)
