"""Every limit of SPEC.md in one place, enforced the same by the CLI and the API."""

from __future__ import annotations

MAX_POST_CHARS = 3000
POST_WINDOW_DAYS = 90

DEFAULT_PAGE = 1
DEFAULT_PAGE_LIMIT = 20
MAX_PAGE_LIMIT = 100

DEFAULT_TOKEN_DAYS = 30
MAX_TOKEN_DAYS = 3650

MAX_STYLE_POSTS_PER_CALL = 5

MAX_PDF_BYTES = 10 * 1024 * 1024  # content calendar PDF
CALENDAR_LENGTHS = (7, 30)
