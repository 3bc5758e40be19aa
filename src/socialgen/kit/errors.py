"""Domain errors. Each carries the HTTP status and the user-facing message.

The API turns them into `{"success": false, "message": ...}`, the CLI prints the
message and exits non-zero, a stream turns them into its error event.
"""

from __future__ import annotations


class SocialgenError(Exception):
    status_code = 400

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status_code is not None:
            self.status_code = status_code


class BadRequest(SocialgenError):
    status_code = 400


class NotAuthenticated(SocialgenError):
    status_code = 401


class Forbidden(SocialgenError):
    status_code = 403


class NotFound(SocialgenError):
    status_code = 404


class QuotaExceeded(SocialgenError):
    status_code = 403
