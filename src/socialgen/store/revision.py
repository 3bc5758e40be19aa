"""The schema revision this code expects, without importing SQLAlchemy: the CLI's
quick read path (posts.quick_listing) checks it with the standard library alone."""

from __future__ import annotations

# The newest revision under migrations/versions; a test keeps the two in step.
HEAD_REVISION = "0012"
