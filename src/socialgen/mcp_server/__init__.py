"""socialgen for AI assistants: a Model Context Protocol server (docs/mcp.md).

`socialgen mcp` serves it over stdio; `socialgen serve` at `/mcp` over Streamable
HTTP, behind the API key. Built on the official SDK (PyPI `mcp`), which only these
faces import: `socialgen --help` never loads it. Every tool is a thin face over the
service functions the CLI and the HTTP API call (posts, generation, calendars,
carousels, styles, publishing); none has a business rule of its own.

Not named `mcp`: the package would shadow the SDK.
"""
