"""Subtitles to plain text: WebVTT, SRT, YouTube json3 and XML (srv1-3, TTML)."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Callable
from xml.etree import ElementTree

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
