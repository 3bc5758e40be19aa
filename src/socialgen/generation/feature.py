"""Posts written by the model: chat, post and batch, in the terminal and over HTTP."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="generation",
    order=0,
    commands=(
        ("chat", "socialgen.generation.cli:chat"),
        ("post", "socialgen.generation.cli:post"),
        ("batch", "socialgen.generation.cli:batch"),
    ),
    streams="socialgen.generation.streams:STREAMS",
    # Each declared once (generation/operations.py): a route, an MCP tool, a command.
    operations=(
        "socialgen.generation.operations:CHAT",
        "socialgen.generation.operations:WRITE_POST",
        "socialgen.generation.operations:WRITE_BATCH",
    ),
)
