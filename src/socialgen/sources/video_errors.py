"""yt-dlp's error messages, reworded for the people who gave the link."""

from __future__ import annotations

import re

from socialgen.kit.errors import BadRequest
from socialgen.sources.fetch import SourceError

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_IE_PREFIX = re.compile(r"^\[[\w:.+-]+\]\s*(?:[^\s:]+:\s+)?")
_CAUSED_BY = re.compile(r"\s*\(caused by .*\)\s*$", re.DOTALL)
_HTTP_ERROR = re.compile(r"Unable to download [\w ]+?: HTTP Error (\d{3}):?")
_ERRNO = re.compile(r"\[Errno -?\d+\]\s*")
_ADVICE = re.compile(r"--[a-z]|yt-dlp -U|github\.com/yt-dlp|please report", re.IGNORECASE)


def ytdlp_error(url: str, exc: Exception) -> BadRequest:
    """yt-dlp's error for `url` as a short message for a person: no colour codes,
    extractor tags, causes or advice meant for the yt-dlp command line."""
    text = _ANSI.sub("", str(exc)).strip()
    text = _IE_PREFIX.sub("", text.removeprefix("ERROR:").strip())
    text = _CAUSED_BY.sub("", text.split("; please report", 1)[0])
    # Advice for the yt-dlp command line (--cookies, yt-dlp -U) means nothing here.
    sentences = re.split(r"(?<=[.!?])\s+", text)
    text = " ".join(s for s in sentences if not _ADVICE.search(s)).strip() or type(exc).__name__
    if text.lower().startswith("unsupported url"):
        return SourceError(f"No video found at {url}: the site is not supported or has no video")
    text = _HTTP_ERROR.sub(r"the server answered \1", text)
    text = _ERRNO.sub("", text)
    return SourceError(f"Could not read the video at {url}: {text.rstrip('.')}")
