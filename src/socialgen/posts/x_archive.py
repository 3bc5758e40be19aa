"""X's archive file `tweets.js`, read as published rows of an import.

The archive X sends ("Download an archive of your data") holds `data/tweets.js`:
`window.YTD.tweets.part0 = [ {"tweet": {...}}, ... ]` (older archives: `tweet.js`,
`window.YTD.tweet.part0`). It is recognised by that opening, whatever the file is
called. Each original post becomes a published row: `full_text` with its HTML
entities decoded (the archive writes `&amp;`, `&lt;`, `&gt;`), `created_at`
("Wed Oct 10 20:19:24 +0000 2018"), `favorite_count` as likes, `retweet_count` as
reposts, and `https://x.com/i/web/status/{id_str}` as its address. The archive has no
reply count: comments are 0. Replies (`in_reply_to_status_id_str` set, the creator's
own threads included) and retweets (`retweeted`, or text starting "RT @") are not the
creator's own posts as their audience saw them: they are skipped and counted.

The file is read as it streams and its items decoded one at a time
(`JSONDecoder.raw_decode` on a window of the text), so neither the archive's text nor
the tree of every tweet's entities is ever held whole: memory follows the posts kept.
"""

from __future__ import annotations

import codecs
import html
import itertools
import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from socialgen.kit.errors import BadRequest
from socialgen.kit.local_files import regular_file_chunks

ARCHIVE_OPENING = re.compile(r"\s*window\.YTD\.[A-Za-z_]+\.part\d+\s*=\s*")
POST_ADDRESS = "https://x.com/i/web/status/{}"
CREATED_AT_FORMAT = "%a %b %d %H:%M:%S %z %Y"
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()
READ_AHEAD = 256 * 1024  # characters past the position: many tweets, never one cut
MAX_ITEM_CHARS = 16 * 1024 * 1024


def open_x_archive(path: Path, limit: int) -> ArchiveRecords | None:
    """The file as an X archive when it opens as one, whatever its name, else None
    (also when it cannot be read: reading it as .csv or .json says why)."""
    texts = _decoded(path, regular_file_chunks(path, limit))
    try:
        first = next(texts, "")
    except BadRequest:
        return None
    if not is_x_archive(first):
        texts.close()
        return None
    return ArchiveRecords(itertools.chain([first], texts))


def _decoded(path: Path, chunks: Generator[bytes]) -> Generator[str]:
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    position = 0
    try:
        for chunk in chunks:
            yield decoder.decode(chunk)
            position += len(chunk)
        yield decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise BadRequest(
            f"Cannot read {path.name}: not UTF-8 text (near byte {position + error.start + 1})"
        ) from None
    finally:
        chunks.close()


def is_x_archive(text: str) -> bool:
    """Whether `text`, the start of a file, opens an X archive."""
    return ARCHIVE_OPENING.match(text) is not None


@dataclass
class ArchiveRecords:
    """What reading an archive skipped and found wrong, filled in as its records are
    read (`records()` yields them one at a time)."""

    texts: Iterator[str]  # the file's text in chunks, from its start
    problems: list[str] = field(default_factory=list)  # "tweet 3: created_at: bad date ..."
    replies: int = 0
    retweets: int = 0

    def records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every original post as (where, record) with the keys a published import row
        has, or a BadRequest when the file is not the JSON it should be."""
        stream = _Stream(self.texts)
        stream.ahead()
        opening = ARCHIVE_OPENING.match(stream.buffer)
        assert opening is not None  # is_x_archive said so
        stream.index = opening.end()
        if stream.peek() != "[":
            raise stream.not_json("expected '[' after '='")
        stream.index += 1
        number = 0
        while stream.peek() != "]":
            number += 1
            item = stream.decode()
            try:
                found = _record(self, f"tweet {number}", item)
            except BadRequest as error:
                self.problems.append(error.message)
                found = None
            if found is not None:
                yield found
            following = stream.peek()
            if following == ",":
                stream.index += 1
            elif following != "]":
                raise stream.not_json("expected ',' or ']'")
        stream.index += 1
        if stream.rest().strip().rstrip(";").strip():
            raise stream.not_json("extra data after the list")


class _Stream:
    """The archive's text a chunk at a time: JSON values are decoded from a window
    that always holds READ_AHEAD characters past the position (or the file's end)."""

    def __init__(self, texts: Iterator[str]) -> None:
        self.texts = texts
        self.buffer = ""
        self.index = 0  # the position in buffer
        self.ended = False
        self.lines_before = 0  # newlines in the text dropped from the buffer
        self.column_before = 0  # characters after the last dropped newline

    def _more(self) -> bool:
        chunk = next(self.texts, None)
        if chunk is None:
            self.ended = True
            return False
        done = self.buffer[: self.index]
        newline = done.rfind("\n")
        if newline < 0:
            self.column_before += len(done)
        else:
            self.lines_before += done.count("\n")
            self.column_before = len(done) - newline - 1
        self.buffer = self.buffer[self.index :] + chunk
        self.index = 0
        return True

    def ahead(self, count: int = READ_AHEAD) -> None:
        """At least `count` characters past the position in the buffer, or all that
        is left of the file."""
        while len(self.buffer) - self.index < count and not self.ended:
            self._more()

    def peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            self.ahead()
            self.index = _SPACE.match(self.buffer, self.index).end()  # type: ignore[union-attr]
            if self.index < len(self.buffer) or self.ended:
                return self.buffer[self.index : self.index + 1]

    def decode(self) -> Any:
        self.ahead()
        while True:
            try:
                value, self.index = _DECODER.raw_decode(self.buffer, self.index)
                return value
            except RecursionError:  # nested thousands deep: no tweet is
                raise self.not_json("nested too deep to be a tweet", self.index) from None
            except json.JSONDecodeError as error:
                # An item longer than the window (never a tweet): widen it and retry.
                if self.ended or len(self.buffer) - self.index > MAX_ITEM_CHARS:
                    raise self.not_json(error.msg, error.pos) from None
                self.ahead(2 * (len(self.buffer) - self.index))

    def rest(self) -> str:
        while self._more():
            if self.buffer[self.index :].strip().rstrip(";").strip():
                break
        return self.buffer[self.index :]

    def not_json(self, message: str, at: int | None = None) -> BadRequest:
        at = self.index if at is None else at
        newline = self.buffer.rfind("\n", 0, at)
        line = self.lines_before + self.buffer.count("\n", 0, at) + 1
        column = at - newline if newline >= 0 else self.column_before + at + 1
        return BadRequest(
            f"Not valid JSON in the X archive (line {line}, column {column}): {message}"
        )


def _record(found: ArchiveRecords, where: str, item: Any) -> tuple[str, dict[str, Any]] | None:
    """The import record of one archive item, None for a reply or a retweet."""
    tweet = item.get("tweet", item) if isinstance(item, dict) else None
    if not isinstance(tweet, dict):
        raise BadRequest(f"{where}: expected an object with a tweet key")
    tweet_id = tweet.get("id_str") or tweet.get("id")
    if tweet_id:
        where = f"{where} (id {tweet_id})"
    full_text = tweet.get("full_text", tweet.get("text"))
    if not isinstance(full_text, str):
        raise BadRequest(f"{where}: full_text is missing")
    if tweet.get("in_reply_to_status_id_str") or tweet.get("in_reply_to_status_id"):
        found.replies += 1
        return None
    if tweet.get("retweeted") is True or full_text.startswith("RT @"):
        found.retweets += 1
        return None
    record = {
        "content": html.unescape(full_text),
        "status": "published",
        "publishedat": _published_at(where, tweet.get("created_at")),
        "likes": tweet.get("favorite_count", 0),
        "reposts": tweet.get("retweet_count", 0),
        "comments": 0,
        "posturl": POST_ADDRESS.format(tweet_id) if tweet_id else None,
    }
    return where, record


def _published_at(where: str, created_at: Any) -> str:
    """ISO 8601 for the common check (which refuses a date in the future)."""
    if not isinstance(created_at, str):
        raise BadRequest(f"{where}: created_at is missing")
    try:
        return datetime.strptime(created_at.strip(), CREATED_AT_FORMAT).isoformat()
    except ValueError:
        raise BadRequest(
            f"{where}: created_at: bad date {created_at!r} "
            "(expected e.g. 'Wed Oct 10 20:19:24 +0000 2018')"
        ) from None
