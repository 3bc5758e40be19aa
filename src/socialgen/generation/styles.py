"""Where a content style joins generation.

Content styles are not built yet (they come with the styles feature), so any
contentStyleId is unknown: refused with SPEC.md's 404 before any work.
"""

from __future__ import annotations

from sqlmodel import Session

from socialgen.errors import NotFound

STYLE_NOT_FOUND = "Content style not found"


def style_guide(session: Session, workspace_id: str, style_id: str | None) -> str | None:
    """Instructions (profile and examples) to write in a style, or None without one."""
    if style_id is None or not style_id.strip():
        return None
    raise NotFound(STYLE_NOT_FOUND)
