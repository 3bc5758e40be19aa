#!/usr/bin/env python3
"""Convert one person's public posts from a non-archive format into an X archive
`tweets.js`, the input of bench/insights.py (read by insights_data.read_tweets_js).

    .venv/bin/python bench/insights_convert.py KIND SOURCE [SOURCE ...] -o OUT.js

OUT.js is `window.YTD.tweets.part0 = [{"tweet": {...}}, ...]` with per post id_str,
full_text, created_at (UTC, "%a %b %d %H:%M:%S +0000 %Y"), favorite_count and
retweet_count (as strings), empty entities (no source says which posts carry media),
and in_reply_to_status_id_str on replies only ("0" where the source does not name the
post replied to). A retweet's full_text starts with "RT @" ("RT @?: " is put in front
when the source's text does not), which is how read_tweets_js recognises it. Several
SOURCEs are read one after the other into one OUT.js. Prints one line: the posts
written, the originals (neither reply nor retweet) with their date range, the replies
and the retweets.

KIND, with the public source it was written for and its rules for replies and
retweets:

  analytics     Twitter Analytics exports tweet_activity_metrics_*.csv ("Tweet id",
                "Tweet text", "likes", "retweets", ...), e.g. the monthly files of
                https://github.com/debruine/30DCC-2022 data/tweets/. Rows are
                deduplicated by tweet id (the last one read wins, so give the files
                oldest first: a later export has the later counts). The export's
                "time" has no seconds, so the time is read from the tweet id (a
                snowflake). A reply: text opening on "@". No retweets (the export
                leaves them out).
  twint         twint's CSV (id, conversation_id, created_at in epoch ms, tweet,
                likes_count, retweets_count, retweet, reply_to, username), e.g.
                https://github.com/erikjoy/elon-twitter-research data/elonmusk.csv.
                A reply: its conversation is not its own (conversation_id != id), or
                reply_to names someone other than the author; it replies to the
                conversation_id. A retweet: the retweet column is True.
  columns       CSV of id, created_at ("%Y-%m-%d %H:%M:%S", UTC), favorite_count,
                retweet_count, text: https://github.com/Alisbasa/AMLOTweet tweets.csv.
                A reply: text opening on "@"; a retweet: text opening on "RT @".
  xlsx          Excel sheet of Text, Retweets, Favs, Date (an Excel serial date, UTC),
                URL (the tweet id is its last path segment):
                https://github.com/Syreus868389/bolsonaro-twitter
                bolsonaro-tweets.xlsx. A reply: text opening on "@". No retweets.
  post-type     CSV of tweet_id, text, published_at_utc (ISO 8601), like_count,
                retweet_count, post_type (original, quote, reply, retweet):
                https://github.com/route7/his-tweets tweets.csv. A retweet: post_type
                retweet; a reply: post_type reply, or text opening on "@" (one quote
                does); originals and quotes are originals.
  scraper-json  JSON of tweets (a list, or an object holding it under "tweets") with
                id, text, createdAt (already in X's format), likes, retweets,
                isRetweet: https://github.com/BryanChanPokJyu/twitter-scraper-aleabitoreddit
                tweets.json. A retweet: isRetweet; a reply: text opening on "@".
  date-time     CSV of date (M/D/YYYY), time (H:M:S, taken as UTC: the source does not
                say), tweet, replies, retweets, likes, and no ids:
                https://github.com/Brlaney/djt-tweets tweets.csv. Ids are made up as
                "djt" and the row's number from 0 in file order, five digits
                (djt00000, ...). The text is stripped (some open on a space). The file
                is not valid UTF-8 (stray bytes where curly quotes lost their lead
                bytes): those bytes are read as U+FFFD (881 in 417 posts), as the
                earlier conversion did, rather than guessing the lost characters. A
                reply: text opening on "@"; a retweet: text opening on "RT @".
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

X_TIME = "%a %b %d %H:%M:%S +0000 %Y"
SNOWFLAKE_EPOCH_MS = 1288834974657
# Excel's day 0 (1899-12-30 keeps its 1900 leap-year bug out of modern dates).
EXCEL_EPOCH = datetime(1899, 12, 30, tzinfo=UTC)
SHEET_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


@dataclass(frozen=True)
class Post:
    post_id: str
    text: str
    created_at: datetime
    likes: int
    retweets: int
    is_reply: bool = False
    is_retweet: bool = False
    # Most sources only tell that a post is a reply, not to which post.
    reply_to: str = "0"

    @property
    def is_original(self) -> bool:
        return not (self.is_reply or self.is_retweet)


def csv_rows(
    path: Path, encoding: str = "utf-8-sig", errors: str = "strict"
) -> Iterator[dict[str, str]]:
    # utf-8-sig: route7's tweets.csv opens on a byte-order mark, which would else stick
    # to the first header ("\ufefftweet_id").
    with path.open(encoding=encoding, errors=errors, newline="") as file:
        yield from csv.DictReader(file)


def count(value: str) -> int:
    # Analytics exports write counts as floats ("12.0").
    return int(float(value)) if value.strip() else 0


def snowflake_time(tweet_id: str) -> datetime:
    ms = (int(tweet_id) >> 22) + SNOWFLAKE_EPOCH_MS
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)


def read_analytics(paths: Sequence[Path]) -> list[Post]:
    by_id: dict[str, Post] = {}
    for path in paths:
        for row in csv_rows(path):
            text = row["Tweet text"]
            tweet_id = row["Tweet id"]
            by_id[tweet_id] = Post(
                post_id=tweet_id,
                text=text,
                created_at=snowflake_time(tweet_id),
                likes=count(row["likes"]),
                retweets=count(row["retweets"]),
                is_reply=text.startswith("@"),
            )
    return list(by_id.values())


def replied_users(reply_to: str) -> set[str]:
    # Lower-cased: twint's username column is, while reply_to keeps each user's own
    # casing ("Teslarati").
    entries: list[dict[str, str]] = ast.literal_eval(reply_to) if reply_to.strip() else []
    return {(entry.get("screen_name") or entry.get("username") or "").lower() for entry in entries}


def read_twint(paths: Sequence[Path]) -> list[Post]:
    posts = []
    for path in paths:
        for row in csv_rows(path):
            others = replied_users(row["reply_to"]) - {row["username"].lower()}
            is_reply = row["conversation_id"] != row["id"] or bool(others)
            posts.append(
                Post(
                    post_id=row["id"],
                    text=row["tweet"],
                    created_at=datetime.fromtimestamp(int(row["created_at"]) / 1000, UTC),
                    likes=count(row["likes_count"]),
                    retweets=count(row["retweets_count"]),
                    is_reply=is_reply,
                    is_retweet=row["retweet"] == "True",
                    reply_to=row["conversation_id"],
                )
            )
    return posts


def read_columns(paths: Sequence[Path]) -> list[Post]:
    return [
        Post(
            post_id=row["id"],
            text=row["text"],
            created_at=datetime.strptime(row["created_at"], "%Y-%m-%d %H:%M:%S").replace(
                tzinfo=UTC
            ),
            likes=count(row["favorite_count"]),
            retweets=count(row["retweet_count"]),
            is_reply=row["text"].startswith("@"),
            is_retweet=row["text"].startswith("RT @"),
        )
        for path in paths
        for row in csv_rows(path)
    ]


def shared_strings(book: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in book.namelist():
        return []
    root = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
    # A rich-text string is split over runs (<r><t>); phonetic hints (<rPh>) are not text.
    return [
        "".join(
            part.text or ""
            for child in item
            if child.tag in (f"{SHEET_NS}t", f"{SHEET_NS}r")
            for part in child.iter(f"{SHEET_NS}t")
        )
        for item in root.iter(f"{SHEET_NS}si")
    ]


def cell_value(cell: ElementTree.Element, strings: list[str]) -> str:
    kind = cell.get("t")
    if kind == "inlineStr":
        return "".join(part.text or "" for part in cell.iter(f"{SHEET_NS}t"))
    value = cell.findtext(f"{SHEET_NS}v") or ""
    return strings[int(value)] if kind == "s" else value


def column_letters(reference: str) -> str:
    return reference.rstrip("0123456789")


def sheet_rows(path: Path) -> list[dict[str, str]]:
    """The first sheet's rows as dicts keyed by the first row's headers."""
    with zipfile.ZipFile(path) as book:
        strings = shared_strings(book)
        root = ElementTree.fromstring(book.read("xl/worksheets/sheet1.xml"))
    grid = [
        {column_letters(cell.get("r", "")): cell_value(cell, strings) for cell in row}
        for row in root.iter(f"{SHEET_NS}row")
    ]
    if not grid:
        return []
    headers = grid[0]
    return [
        {headers[col]: value for col, value in row.items() if col in headers} for row in grid[1:]
    ]


def excel_time(serial: str) -> datetime:
    return EXCEL_EPOCH + timedelta(seconds=round(float(serial) * 86400))


def read_xlsx(paths: Sequence[Path]) -> list[Post]:
    return [
        Post(
            post_id=row["URL"].rstrip("/").rsplit("/", 1)[-1],
            text=row.get("Text", ""),
            created_at=excel_time(row["Date"]),
            likes=count(row.get("Favs", "")),
            retweets=count(row.get("Retweets", "")),
            is_reply=row.get("Text", "").startswith("@"),
        )
        for path in paths
        for row in sheet_rows(path)
    ]


def read_post_type(paths: Sequence[Path]) -> list[Post]:
    return [
        Post(
            post_id=row["tweet_id"],
            text=row["text"],
            created_at=datetime.fromisoformat(row["published_at_utc"].replace("Z", "+00:00")),
            likes=count(row["like_count"]),
            retweets=count(row["retweet_count"]),
            is_reply=row["post_type"] == "reply" or row["text"].startswith("@"),
            is_retweet=row["post_type"] == "retweet",
        )
        for path in paths
        for row in csv_rows(path)
    ]


def scraped_tweets(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    tweets: list[dict[str, Any]] = data["tweets"] if isinstance(data, dict) else data
    return tweets


def read_scraper_json(paths: Sequence[Path]) -> list[Post]:
    return [
        Post(
            post_id=str(tweet["id"]),
            text=tweet["text"] or "",
            created_at=datetime.strptime(tweet["createdAt"], "%a %b %d %H:%M:%S %z %Y"),
            likes=int(tweet["likes"] or 0),
            retweets=int(tweet["retweets"] or 0),
            is_reply=(tweet["text"] or "").startswith("@"),
            is_retweet=bool(tweet.get("isRetweet")),
        )
        for path in paths
        for tweet in scraped_tweets(path)
    ]


def read_date_time(paths: Sequence[Path]) -> list[Post]:
    rows = [row for path in paths for row in csv_rows(path, errors="replace")]
    posts = []
    for number, row in enumerate(rows):
        text = row["tweet"].strip()
        created_at = datetime.strptime(f"{row['date']} {row['time']}", "%m/%d/%Y %H:%M:%S")
        posts.append(
            Post(
                post_id=f"djt{number:05d}",
                text=text,
                created_at=created_at.replace(tzinfo=UTC),
                likes=count(row["likes"]),
                retweets=count(row["retweets"]),
                is_reply=text.startswith("@"),
                is_retweet=text.startswith("RT @"),
            )
        )
    return posts


READERS: dict[str, Callable[[Sequence[Path]], list[Post]]] = {
    "analytics": read_analytics,
    "twint": read_twint,
    "columns": read_columns,
    "xlsx": read_xlsx,
    "post-type": read_post_type,
    "scraper-json": read_scraper_json,
    "date-time": read_date_time,
}


def tweet(post: Post) -> dict[str, Any]:
    text = post.text
    if post.is_retweet and not text.startswith("RT @"):
        text = "RT @?: " + text
    fields: dict[str, Any] = {
        "id_str": post.post_id,
        "full_text": text,
        "created_at": post.created_at.astimezone(UTC).strftime(X_TIME),
        "favorite_count": str(post.likes),
        "retweet_count": str(post.retweets),
        "entities": {},
    }
    if post.is_reply:
        fields["in_reply_to_status_id_str"] = post.reply_to
    return {"tweet": fields}


def write_tweets_js(posts: Sequence[Post], out: Path) -> None:
    # indent=0 and no final newline: the layout of the earlier ad-hoc conversions, so a
    # rerun can be checked byte for byte against them.
    body = json.dumps([tweet(post) for post in posts], ensure_ascii=False, indent=0)
    out.write_text("window.YTD.tweets.part0 = " + body, encoding="utf-8")


def summary(posts: Sequence[Post], out: Path) -> str:
    originals = sorted(post.created_at for post in posts if post.is_original)
    span = f" ({originals[0]:%Y-%m-%d} to {originals[-1]:%Y-%m-%d})" if originals else ""
    replies = sum(post.is_reply for post in posts)
    retweets = sum(post.is_retweet for post in posts)
    return (
        f"{out}: {len(posts)} posts, {len(originals)} originals{span}, "
        f"{replies} replies, {retweets} retweets"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("kind", choices=sorted(READERS))
    parser.add_argument("sources", nargs="+", type=Path, metavar="SOURCE")
    parser.add_argument("-o", "--out", type=Path, required=True, metavar="OUT.js")
    args = parser.parse_args(argv)
    posts = READERS[args.kind](args.sources)
    write_tweets_js(posts, args.out)
    print(summary(posts, args.out))


if __name__ == "__main__":
    main()
