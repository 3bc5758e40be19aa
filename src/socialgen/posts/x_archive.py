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

Items are decoded one at a time (`JSONDecoder.raw_decode`), so the archive is never
held twice, as text and as a tree of every tweet's entities.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from socialgen.errors import BadRequest

ARCHIVE_OPENING = re.compile(r"\s*window\.YTD\.[A-Za-z_]+\.part\d+\s*=\s*")
POST_ADDRESS = "https://x.com/i/web/status/{}"
CREATED_AT_FORMAT = "%a %b %d %H:%M:%S %z %Y"
_SPACE = re.compile(r"\s*")


def is_x_archive(text: str) -> bool:
    return ARCHIVE_OPENING.match(text) is not None


@dataclass
class ArchiveRecords:
    """The original posts of an archive as import records, and what was skipped."""

    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "tweet 3: created_at: bad date ..."
    replies: int = 0
    retweets: int = 0


def archive_records(text: str) -> ArchiveRecords:
    """Every original post of the archive as (where, record) with the keys a published
    import row has, or a BadRequest when the file is not the JSON it should be."""
    opening = ARCHIVE_OPENING.match(text)
    assert opening is not None  # is_x_archive said so
    decoder = json.JSONDecoder()
    found = ArchiveRecords()
    index = _skip_space(text, opening.end())
    if not text.startswith("[", index):
        raise _not_json(text, index, "expected '[' after '='")
    index = _skip_space(text, index + 1)
    number = 0
    while not text.startswith("]", index):
        number += 1
        try:
            item, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as error:
            raise _not_json(text, error.pos, error.msg) from None
        try:
            _add(found, f"tweet {number}", item)
        except BadRequest as error:
            found.problems.append(error.message)
        index = _skip_space(text, index)
        if text.startswith(",", index):
            index = _skip_space(text, index + 1)
        elif not text.startswith("]", index):
            raise _not_json(text, index, "expected ',' or ']'")
    rest = text[index + 1 :].strip().rstrip(";").strip()
    if rest:
        raise _not_json(text, index + 1, "extra data after the list")
    return found


def _add(found: ArchiveRecords, where: str, item: Any) -> None:
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
        return
    if tweet.get("retweeted") is True or full_text.startswith("RT @"):
        found.retweets += 1
        return
    record = {
        "content": html.unescape(full_text),
        "status": "published",
        "publishedat": _published_at(where, tweet.get("created_at")),
        "likes": tweet.get("favorite_count", 0),
        "reposts": tweet.get("retweet_count", 0),
        "comments": 0,
        "posturl": POST_ADDRESS.format(tweet_id) if tweet_id else None,
    }
    found.records.append((where, record))


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


def _skip_space(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _not_json(text: str, index: int, message: str) -> BadRequest:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return BadRequest(f"Not valid JSON in the X archive (line {line}, column {column}): {message}")
