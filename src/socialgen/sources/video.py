"""A video's transcript, title and description, via yt-dlp: no media is downloaded.

yt-dlp reads the video page (YouTube and every other site it supports; its
generic extractor also reads HTML5 `<video><track>` subtitles). Every connection
it opens goes through the SSRF guard, redirects included, over a checked address
(`guard_ytdlp.py`). The track is chosen by `video_tracks.py`, fetched by
`socialgen.sources.fetch`, then turned into plain text by `subtitles.py`; yt-dlp's
errors are reworded by `video_errors.py`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from socialgen.kit.errors import BadRequest
from socialgen.sources.fetch import SourceError, fetch
from socialgen.sources.guard import check_url_async
from socialgen.sources.guard_ytdlp import YtdlpGuard, guarded_youtube_dl
from socialgen.sources.subtitles import subtitle_text
from socialgen.sources.video_errors import ytdlp_error
from socialgen.sources.video_tracks import pick_track

# The video source as its callers know it; the track choice and the subtitle
# parsing are named here too (they live in their own modules).
__all__ = ["VideoSource", "extract_video", "pick_track", "subtitle_text"]

VIDEO_TIMEOUT = 90.0  # the whole yt-dlp extraction
SOCKET_TIMEOUT = 15.0  # each connect or read inside it
MAX_RESPONSE_BYTES = 16_000_000  # any one answer yt-dlp reads (pages, player code, APIs)
MAX_SUBTITLE_BYTES = 5_000_000
SUBTITLE_ACCEPT = "text/vtt,application/json;q=0.9,text/xml;q=0.9,*/*;q=0.5"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class VideoSource:
    url: str
    title: str
    description: str  # "" when the site gives none
    transcript: str
    language: str = ""  # of the transcript track, as the site names it ("en", "en-US")
    automatic: bool = False  # True for automatic (speech recognition) captions


async def extract_video(url: str, *, allow_private: bool = False) -> VideoSource:
    """Title, description and transcript of the video at `url` (`allow_private`: the
    caller's allow_private_urls setting, for every connection yt-dlp makes too).

    Raises `UrlNotAllowed` before yt-dlp runs for a link the guard refuses, and a
    `BadRequest` with a clear message when the site is not supported, the video is
    unavailable or it has no subtitles or captions.
    """
    url = await check_url_async(url, allow_private=allow_private)
    try:
        async with asyncio.timeout(VIDEO_TIMEOUT):
            info = await asyncio.to_thread(_video_info, url, allow_private)
    except TimeoutError:
        raise SourceError(
            f"Could not read the video at {url}: no answer within {VIDEO_TIMEOUT:g} s"
        ) from None
    track = pick_track(info)
    if track is None:
        raise BadRequest(
            f"This video has no subtitles or captions: {url} (a transcript is needed to use it)"
        )
    if track.data is not None:
        content = track.data
    else:
        page = await fetch(
            track.url,
            max_bytes=MAX_SUBTITLE_BYTES,
            accept=SUBTITLE_ACCEPT,
            allow_private=allow_private,
        )
        content = page.text
    transcript = subtitle_text(content, track.ext)
    if not transcript:
        raise BadRequest(
            f"This video has no subtitles or captions: the {track.language} track of {url} is empty"
        )
    return VideoSource(
        url=url,
        title=_title(info),
        description=_clean_block(str(info.get("description") or "")),
        transcript=transcript,
        language=track.language,
        automatic=track.automatic,
    )


# --- running yt-dlp ------------------------------------------------------------------


class _QuietLogger:
    """yt-dlp's output goes to our log at debug level, never to the terminal."""

    def debug(self, message: str) -> None:
        log.debug("yt-dlp: %s", message)

    def info(self, message: str) -> None:
        log.debug("yt-dlp: %s", message)

    def warning(self, message: str) -> None:
        log.debug("yt-dlp warning: %s", message)

    def error(self, message: str) -> None:
        log.debug("yt-dlp error: %s", message)


def _options() -> dict[str, Any]:
    return {
        "quiet": True,
        "no_warnings": True,
        "noprogress": True,
        "color": "no_color",
        "logger": _QuietLogger(),
        "skip_download": True,
        "writesubtitles": True,  # ask for subtitle information; nothing is written
        "writeautomaticsub": True,
        "noplaylist": True,
        "extract_flat": "in_playlist",  # a playlist is not resolved video by video
        "ignore_no_formats_error": True,  # the media formats do not matter here
        "socket_timeout": SOCKET_TIMEOUT,
        "extractor_retries": 1,
        "proxy": "",  # no proxy: every connection must reach the address the guard checked
        "cachedir": False,
    }


def _video_info(url: str, allow_private: bool) -> dict[str, Any]:
    """yt-dlp's information for `url` (blocking: runs in a worker thread)."""
    guard = YtdlpGuard(max_response_bytes=MAX_RESPONSE_BYTES, allow_private=allow_private)
    try:
        with guarded_youtube_dl(_options(), guard) as ydl:
            info = ydl.extract_info(url, download=False)
    except Exception as exc:  # yt-dlp raises its own errors and the odd plain one
        # A guard refusal inside yt-dlp surfaces as a generic network error (or
        # another failure after it): say what really happened.
        if guard.refusal is not None:
            raise guard.refusal from None
        raise ytdlp_error(url, exc) from None
    if not isinstance(info, dict):
        raise SourceError(f"Could not read the video at {url}: no information found")
    if info.get("_type") in ("playlist", "multi_video"):
        return _single_video(url, info)
    return info


def _single_video(url: str, info: dict[str, Any]) -> dict[str, Any]:
    entries = [entry for entry in info.get("entries") or [] if isinstance(entry, dict)]
    videos = [entry for entry in entries if entry.get("_type") not in ("url", "url_transparent")]
    if not videos:
        raise BadRequest(f"This link is a playlist, not a single video: {url}")
    return next((video for video in videos if pick_track(video)), videos[0])


# --- title and description ---------------------------------------------------------------


def _title(info: Mapping[str, Any]) -> str:
    title = " ".join(unicodedata.normalize("NFKC", str(info.get("title") or "")).split())
    if info.get("extractor") == "html5":
        title = re.sub(r" \(\d+\)$", "", title)  # the generic extractor numbers <video>s
    return title


def _clean_block(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n")
    return re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]+\n", "\n", text)).strip()
