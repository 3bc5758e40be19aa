"""A video's transcript, title and description, via yt-dlp: no media is downloaded.

yt-dlp reads the video page (YouTube and every other site it supports; its
generic extractor also reads HTML5 `<video><track>` subtitles). Every connection
it opens goes through the SSRF guard, redirects included, over a checked address
(see `_guarded_youtube_dl`); the chosen subtitle track is fetched by
`socialgen.sources.fetch`, then turned into plain text (`subtitle_text`).
"""

from __future__ import annotations

import asyncio
import functools
import html
import http.client
import io
import json
import logging
import re
import socket
import threading
import unicodedata
import urllib.response
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

from socialgen.errors import BadRequest, SocialgenError
from socialgen.sources.fetch import SourceError, fetch
from socialgen.sources.guard import check_url_async, destination

VIDEO_TIMEOUT = 90.0  # the whole yt-dlp extraction
SOCKET_TIMEOUT = 15.0  # each connect or read inside it
MAX_RESPONSE_BYTES = 16_000_000  # any one answer yt-dlp reads (pages, player code, APIs)
MAX_SUBTITLE_BYTES = 5_000_000
SUBTITLE_FORMATS = ("vtt", "json3", "srv3", "srv2", "srv1", "ttml", "srt")
SKIPPED_TRACKS = frozenset({"live_chat", "rechat", "danmaku", "comments"})
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


@dataclass(frozen=True)
class SubtitleTrack:
    language: str
    ext: str
    url: str
    automatic: bool
    data: str | None = None  # a few extractors hand the subtitles over inline


async def extract_video(url: str) -> VideoSource:
    """Title, description and transcript of the video at `url`.

    Raises `UrlNotAllowed` before yt-dlp runs for a link the guard refuses, and a
    `BadRequest` with a clear message when the site is not supported, the video is
    unavailable or it has no subtitles or captions.
    """
    url = await check_url_async(url)
    try:
        async with asyncio.timeout(VIDEO_TIMEOUT):
            info = await asyncio.to_thread(_video_info, url)
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
        page = await fetch(track.url, max_bytes=MAX_SUBTITLE_BYTES, accept=SUBTITLE_ACCEPT)
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


# --- choosing a track ------------------------------------------------------------------


def pick_track(info: Mapping[str, Any]) -> SubtitleTrack | None:
    """The best subtitle track: English first, manual before automatic, then the
    video's own language, then any; within a language the best-parsed format."""
    original = str(info.get("language") or "").lower()
    candidates: list[tuple[tuple[int, int, int], SubtitleTrack]] = []
    for automatic, key in ((False, "subtitles"), (True, "automatic_captions")):
        tracks = info.get(key)
        if not isinstance(tracks, Mapping):
            continue
        for order, (language, formats) in enumerate(tracks.items()):
            if str(language).lower() in SKIPPED_TRACKS or not isinstance(formats, list):
                continue
            chosen = _best_format(formats)
            if chosen is None:
                continue
            ext, track_url, data = chosen
            track = SubtitleTrack(str(language), ext, track_url, automatic, data)
            candidates.append(((_language_rank(track, original), automatic, order), track))
    return min(candidates, key=lambda candidate: candidate[0])[1] if candidates else None


def _language_rank(track: SubtitleTrack, original: str) -> int:
    language = track.language.lower()
    base = language.removesuffix("-orig")
    if base == "en":
        return 0 if not track.automatic or language.endswith("-orig") else 1
    if base.startswith("en-"):
        return 2
    if original and (base == original or base.split("-")[0] == original.split("-")[0]):
        return 3 if not track.automatic or language.endswith("-orig") else 4
    return 5


def _best_format(formats: list[Any]) -> tuple[str, str, str | None] | None:
    usable: list[tuple[int, str, str, str | None]] = []
    for entry in formats:
        if not isinstance(entry, Mapping):
            continue
        ext = str(entry.get("ext") or "").lower()
        track_url = str(entry.get("url") or "")
        data = entry.get("data")
        if not track_url and not isinstance(data, str):
            continue
        rank = SUBTITLE_FORMATS.index(ext) if ext in SUBTITLE_FORMATS else len(SUBTITLE_FORMATS)
        usable.append((rank, ext, track_url, data if isinstance(data, str) else None))
    if not usable:
        return None
    _, ext, track_url, data = min(usable, key=lambda item: item[0])
    return ext, track_url, data


# --- subtitles to plain text ---------------------------------------------------------

_TAG = re.compile(r"<[^>]*>")
_ASS_TAG = re.compile(r"\{\\[^}]*\}")
_SOUND_LABEL = re.compile(r"\[[^\]\n]{1,40}\]|♪+")
_SPEAKER_MARK = re.compile(r"^(?:>>+|-)\s*")
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\u00a0]+")
_WHITESPACE = re.compile(r"\s+")


def subtitle_text(content: str, ext: str = "") -> str:
    """Plain text from WebVTT, SRT, YouTube json3 or XML (srv1-3, TTML) subtitles.

    Timestamps, cue numbers, styling tags and sound labels ("[Music]") go; the lines
    that automatic captions repeat as they roll up are kept once.
    """
    content = content.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = _parser_for(content, ext.lower())(content)
    return _WHITESPACE.sub(" ", " ".join(_drop_rolling_repeats(lines))).strip()


def _parser_for(content: str, ext: str) -> Callable[[str], list[str]]:
    if ext in ("vtt", "srt"):
        return _cue_lines
    if ext in ("json3", "json"):
        return _json3_lines
    if ext.startswith("srv") or ext in ("ttml", "xml", "dfxp"):
        return _xml_lines
    head = content.lstrip()[:16]
    if head.startswith("{"):
        return _json3_lines
    if head.startswith("<"):
        return _xml_lines
    return _cue_lines


def _cue_lines(content: str) -> list[str]:
    """WebVTT and SRT: every block with a timing line; headers, NOTE and STYLE
    blocks (no timing) and cue numbers or identifiers (before it) are dropped."""
    lines: list[str] = []
    for block in _BLOCK_BREAK.split(content):
        rows = block.split("\n")
        timing = next((index for index, row in enumerate(rows) if "-->" in row), None)
        if timing is None:
            continue
        lines.extend(line for row in rows[timing + 1 :] if (line := _clean_line(row)))
    return lines


def _json3_lines(content: str) -> list[str]:
    try:
        document = json.loads(content)
    except ValueError:
        return []
    events = document.get("events") if isinstance(document, dict) else None
    lines: list[str] = []
    for event in events if isinstance(events, list) else []:
        segments = event.get("segs") if isinstance(event, dict) else None
        if not isinstance(segments, list):
            continue
        text = "".join(str(seg.get("utf8", "")) for seg in segments if isinstance(seg, dict))
        lines.extend(line for row in text.split("\n") if (line := _clean_line(row)))
    return lines


def _xml_lines(content: str) -> list[str]:
    try:
        root = ElementTree.fromstring(_BR.sub("\n", content))
    except ElementTree.ParseError:
        return []
    lines: list[str] = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] not in ("text", "p"):
            continue
        text = "".join(element.itertext())
        lines.extend(line for row in text.split("\n") if (line := _clean_line(row)))
    return lines


def _clean_line(row: str) -> str:
    text = _ASS_TAG.sub("", _TAG.sub("", row))
    # Twice: srv1 escapes its entities once more ("&amp;#39;").
    text = unicodedata.normalize("NFKC", html.unescape(html.unescape(text)))
    text = _SPEAKER_MARK.sub("", _SOUND_LABEL.sub(" ", text).strip())
    return _SPACES.sub(" ", text).strip()


def _drop_rolling_repeats(lines: list[str]) -> list[str]:
    """Automatic captions roll: each cue repeats the line before, and a line may be
    shown again growing word by word. Keep every line once, in its longest form."""
    kept: list[str] = []
    for line in lines:
        if line in kept[-2:]:
            continue
        if kept and line.startswith(kept[-1] + " "):
            kept[-1] = line  # the same line, grown
            continue
        kept.append(line)
    return kept


# --- title and description ---------------------------------------------------------------


def _title(info: Mapping[str, Any]) -> str:
    title = " ".join(unicodedata.normalize("NFKC", str(info.get("title") or "")).split())
    if info.get("extractor") == "html5":
        title = re.sub(r" \(\d+\)$", "", title)  # the generic extractor numbers <video>s
    return title


def _clean_block(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n")
    return re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]+\n", "\n", text)).strip()


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


def _video_info(url: str) -> dict[str, Any]:
    """yt-dlp's information for `url` (blocking: runs in a worker thread)."""
    _local.refusal = None
    try:
        with _guarded_youtube_dl()(_options()) as ydl:
            info = ydl.extract_info(url, download=False)
    except Exception as exc:  # yt-dlp raises its own errors and the odd plain one
        # A guard refusal inside yt-dlp surfaces as a generic network error: say
        # what really happened.
        refusal: SocialgenError | None = getattr(_local, "refusal", None)
        if refusal is not None:
            raise refusal from None
        raise _ytdlp_error(url, exc) from None
    finally:
        _local.refusal = None
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


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_IE_PREFIX = re.compile(r"^\[[\w:.+-]+\]\s*(?:[^\s:]+:\s+)?")
_CAUSED_BY = re.compile(r"\s*\(caused by .*\)\s*$", re.DOTALL)
_HTTP_ERROR = re.compile(r"Unable to download [\w ]+?: HTTP Error (\d{3}):?")
_ERRNO = re.compile(r"\[Errno -?\d+\]\s*")
_ADVICE = re.compile(r"--[a-z]|yt-dlp -U|github\.com/yt-dlp|please report", re.IGNORECASE)


def _ytdlp_error(url: str, exc: Exception) -> BadRequest:
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


# --- every connection yt-dlp makes passes the guard ----------------------------------------

_local = threading.local()  # the guard's refusal, per worker thread


class _Refused(OSError):
    """Raised inside yt-dlp's networking, which handles OSErrors as network failures."""


def _refuse(error: SocialgenError) -> _Refused:
    if getattr(_local, "refusal", None) is None:
        _local.refusal = error
    return _Refused(error.message)


def _connect_checked(
    address: tuple[str, int], timeout: float | None, source_address: Any = None
) -> socket.socket:
    """`socket.create_connection`, but only to addresses the guard approved for the host."""
    host, port = address
    shown = f"[{host}]" if ":" in host else host
    try:
        target = destination(f"http://{shown}:{port}/")
    except SocialgenError as exc:
        raise _refuse(exc) from None
    failure: OSError | None = None
    for ip in target.addresses:
        try:
            return socket.create_connection((ip, port), timeout, source_address)
        except OSError as exc:
            failure = exc
    raise failure or OSError(f"no address to connect to for {host}")


def _too_large() -> _Refused:
    limit = f"{MAX_RESPONSE_BYTES / 1_000_000:g} MB"
    return _refuse(SourceError(f"Could not read the video page: an answer is larger than {limit}"))


class _CappedResponse(http.client.HTTPResponse):
    """An HTTP response that refuses to deliver more than MAX_RESPONSE_BYTES."""

    received = 0

    def begin(self) -> None:
        super().begin()
        if self.length is not None and self.length > MAX_RESPONSE_BYTES:
            raise _too_large()

    def read(self, amt: int | None = None) -> bytes:
        if amt is None or amt < 0:
            return b"".join(iter(functools.partial(self.read, 65_536), b""))
        data = super().read(amt)
        self.received += len(data)
        if self.received > MAX_RESPONSE_BYTES:
            raise _too_large()
        return data


def _checked_connection(
    connection_class: type[http.client.HTTPConnection], *args: Any, **kwargs: Any
) -> http.client.HTTPConnection:
    connection = connection_class(*args, **kwargs)
    connection._create_connection = _connect_checked  # type: ignore[attr-defined]
    connection.response_class = _CappedResponse
    return connection


def _decoded(response: Any) -> Any:
    """Undo gzip/deflate (asked for identity, but servers may compress anyway), with
    the same cap on the decoded size: no decompression bombs."""
    encoding = str(response.headers.get("Content-Encoding", "")).strip().lower()
    if encoding in ("", "identity"):
        return response
    wbits = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
    if encoding not in wbits:
        raise _refuse(SourceError(f"Could not read the video page: unsupported {encoding} answer"))
    try:
        body = zlib.decompressobj(wbits[encoding]).decompress(
            response.read(), MAX_RESPONSE_BYTES + 1
        )
    except zlib.error as exc:
        raise OSError(f"broken {encoding} answer: {exc}") from None
    if len(body) > MAX_RESPONSE_BYTES:
        raise _too_large()
    decoded = urllib.response.addinfourl(
        io.BytesIO(body), response.headers, response.url, response.code
    )
    decoded.msg = response.msg  # type: ignore[attr-defined]  # urllib reads it
    return decoded


@functools.cache
def _guarded_youtube_dl() -> Any:
    """A YoutubeDL whose only network path is a guarded copy of yt-dlp's urllib handler.

    Built on first use: importing yt-dlp is slow and only needed once a video is read.
    """
    from urllib.request import (
        HTTPCookieProcessor,
        HTTPDefaultErrorHandler,
        HTTPErrorProcessor,
        OpenerDirector,
        UnknownHandler,
    )

    from yt_dlp import YoutubeDL  # type: ignore[import-untyped]
    from yt_dlp.networking._urllib import (  # type: ignore[import-untyped]
        HTTPHandler,
        RedirectHandler,
        UrllibRH,
    )

    class GuardedHTTPHandler(HTTPHandler):  # type: ignore[misc]
        def http_open(self, req: Any) -> Any:
            req.headers.pop("Ytdl-socks-proxy", None)  # no proxies, see _options()
            connect = functools.partial(_checked_connection, http.client.HTTPConnection)
            return self.do_open(connect, req)

        def https_open(self, req: Any) -> Any:
            req.headers.pop("Ytdl-socks-proxy", None)
            connect = functools.partial(_checked_connection, http.client.HTTPSConnection)
            return self.do_open(connect, req, context=self._context)

        def http_response(self, req: Any, response: Any) -> Any:
            return _decoded(response)

        https_response = http_response

    class GuardedUrllibRH(UrllibRH):  # type: ignore[misc]
        _SUPPORTED_URL_SCHEMES = ("http", "https")
        RH_NAME = "socialgen-guarded-urllib"

        def _create_instance(
            self, proxies: Any, cookiejar: Any, legacy_ssl_support: Any = None
        ) -> OpenerDirector:
            opener = OpenerDirector()
            context = self._make_sslcontext(legacy_ssl_support=legacy_ssl_support)
            for handler in (
                GuardedHTTPHandler(context=context),
                HTTPCookieProcessor(cookiejar),
                UnknownHandler(),  # no data:, file: or ftp: handler: those are refused
                HTTPDefaultErrorHandler(),
                HTTPErrorProcessor(),
                RedirectHandler(),  # each hop opens a new, guarded connection
            ):
                opener.add_handler(handler)
            opener.addheaders = []
            return opener

        def _prepare_headers(self, request: Any, headers: Any) -> None:
            headers["Accept-Encoding"] = "identity"

    class GuardedYoutubeDL(YoutubeDL):  # type: ignore[misc]
        @functools.cached_property
        def _request_director(self) -> Any:
            return self.build_request_director([GuardedUrllibRH])

    return GuardedYoutubeDL
