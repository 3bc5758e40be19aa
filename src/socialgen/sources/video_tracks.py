"""Which subtitle track of a video to read, from yt-dlp's information about it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Best parsed first (see subtitles.py); others are read as a last resort.
SUBTITLE_FORMATS = ("vtt", "json3", "srv3", "srv2", "srv1", "ttml", "srt")
# "Subtitles" some sites list that are not what was said.
SKIPPED_TRACKS = frozenset({"live_chat", "rechat", "danmaku", "comments"})


@dataclass(frozen=True)
class SubtitleTrack:
    language: str
    ext: str
    url: str
    automatic: bool
    data: str | None = None  # a few extractors hand the subtitles over inline


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
