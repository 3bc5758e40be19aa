"""What every feature's resources share: a domain error as the resource's error.

A resource lives in the caller's workspace (stdio: the default one; HTTP: the API
key's); each feature declares its own beside its tools (posts/mcp_tools.py:
`socialgen://posts/{postId}`; carousels/mcp_tools.py: a carousel's PDF).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from socialgen.kit.errors import NotFound, SocialgenError
from socialgen.mcp_server.tooling import in_thread

T = TypeVar("T")


async def read_resource(read: Callable[[], T]) -> T:
    """`read()` in a worker thread; a domain error as the resource's error, with the
    service's message."""
    try:
        return await in_thread(read)
    except NotFound as error:
        raise ResourceNotFoundError(error.message) from None
    except SocialgenError as error:
        raise ResourceError(error.message) from None
