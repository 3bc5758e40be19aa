"""Posts from a CSV or JSON file, checked whole before any is created.

CSV: a header row naming the columns (any order, any case): `content` (or
`postContent`) is required; `date` (or `scheduledAt`), `status` and `theme` are
optional, and so is `post_id` (`postId`, `id`): a row naming a post the workspace
has is that post, skipped or with `update` updated (posts/import_ids.py); `media`,
`variation` and the account are read as posts/import_fields.py says; other
columns are ignored. A cell that starts with a single quote before `=`, `+`, `-`, `@`,
a tab or a carriage return loses that quote: `posts export` adds it so that a
spreadsheet shows such a cell as text (posts/csv_cells.py). A UTF-8 BOM
is tolerated. Rows are named as a spreadsheet numbers them: the header is row 1.

JSON: a list of objects, or `{"posts": [...]}`, with the same keys. Items are
named by their position, from item 1.

Status is `draft` (the default), `scheduled`, which needs a future `date`, or
`published`, with `publishedAt` and counts (posts/history_rows.py); a draft's date is
not kept (a draft has no date of its own). `theme` becomes the title of the post's
conversation. A published row the workspace already has is skipped
(posts/import_dedup.py).

X's archive file `tweets.js` is recognised by its content, whatever its name, and read
as published rows (posts/x_archive.py); its items are named "tweet 3 (id ...)". X's
analytics exports (CSV) are recognised by their header and read the same way
(posts/x_analytics.py).

The rows go in as batches (posts/import_rows.py, store.bulk: binary COPY on
PostgreSQL, executemany on SQLite), conversation, post and first version alike,
inside the caller's one transaction, the next batch made while the database writes
this one: 100,000 posts in seconds, where one ORM object (and a flush, and a version
lookup) per row took minutes and held them all in the session.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from sqlmodel import Session

from socialgen.kit.clock import DateOutOfRange, iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.kit.local_files import MAX_TEXT_FILE_BYTES, read_regular_file
from socialgen.kit.text_check import text_problem
from socialgen.posts.csv_cells import plain_cell
from socialgen.posts.history_rows import (
    implied_status,
    published_history,
)
from socialgen.posts.import_dates import ImportDates
from socialgen.posts.import_dedup import without_duplicates
from socialgen.posts.import_fields import row_fields
from socialgen.posts.import_ids import normal_id, split_by_id, update_existing
from socialgen.posts.import_rows import INSERT_BATCH_ROWS as INSERT_BATCH_ROWS
from socialgen.posts.import_rows import Made, import_batches
from socialgen.posts.imported import ImportedPost as ImportedPost
from socialgen.posts.rules import valid_content
from socialgen.posts.x_analytics import AnalyticsExport, analytics_export, export_record
from socialgen.posts.x_archive import open_x_archive
from socialgen.store.bulk import insert_batches
from socialgen.store.tables import PostStatus

IMPORT_STATUSES = (PostStatus.DRAFT, PostStatus.SCHEDULED, PostStatus.PUBLISHED)
# An X archive's tweets.js streams: memory follows the original posts kept, not the
# file, whose replies, retweets and per-tweet entities take most of its size.
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
MAX_REPORTED_PROBLEMS = 10

# Accepted names of each field, compared case-insensitively.
_FIELDS: dict[str, tuple[str, ...]] = {
    "content": ("content", "postcontent"),
    "date": ("date", "scheduledat"),
    "status": ("status",),
    "theme": ("theme",),
    "id": ("post_id", "postid", "id"),
}


@dataclass
class ImportFile:
    """The posts of a file, and the archive's or export's posts left out (not the
    creator's own)."""

    posts: list[ImportedPost]
    skipped_replies: int = 0
    skipped_retweets: int = 0
    # The offsets the file's dates carried (posts/import_zone.py checks the zone).
    dates: ImportDates = field(default_factory=ImportDates)


@dataclass
class LeftOut:
    """What reading a file left out (an X analytics export's or archive's replies and
    retweets) and, for an export, found wrong, filled in as its rows are read."""

    replies: int = 0
    retweets: int = 0
    problems: list[str] = field(default_factory=list)  # "row 3: ... is not an X post id"


def parse_import(
    path: Path, *, now: datetime | None = None, zone: tzinfo = UTC
) -> list[ImportedPost]:
    """Every post of a .csv or .json file (or X archive), or one BadRequest listing
    what is wrong (each problem naming its row or item), so that nothing is imported.
    A date without an offset is a wall time in `zone` (the CLI's: the creator's)."""
    return read_import(path, now=now, zone=zone).posts


def read_import(path: Path, *, now: datetime | None = None, zone: tzinfo = UTC) -> ImportFile:
    """parse_import, with what an X archive skipped and the offsets the dates carried."""
    dates = ImportDates(zone)
    suffix = path.suffix.lower()
    archive = open_x_archive(path, MAX_ARCHIVE_BYTES)
    records: Iterator[tuple[str, dict[str, Any]]]
    left_out = LeftOut()
    if archive is not None:
        records, suffix = archive.records(), ".js"
    else:
        text = _import_text(path, suffix)
        records = _csv_records(text, left_out) if suffix == ".csv" else iter(_json_records(text))
        del text  # once read, the records are all that is kept of the file
    now = now or utcnow()
    posts: list[ImportedPost] = []
    # An archive's or export's own problems (a tweet it cannot read) join the list as
    # they arise.
    problems: list[str] = left_out.problems if archive is None else archive.problems
    for where, record in records:
        try:
            posts.append(_valid_post(where, record, now, dates))
        except BadRequest as error:
            problems.append(f"{where}: {error.message}")
    if problems:
        shown = problems[:MAX_REPORTED_PROBLEMS]
        if len(problems) > len(shown):
            shown.append(f"and {len(problems) - len(shown)} more")
        unit = {".csv": "row", ".js": "tweet"}.get(suffix, "item")
        unit += "" if len(problems) == 1 else "s"
        raise BadRequest(
            f"Nothing imported from {path.name} ({len(problems)} invalid {unit}): "
            + "; ".join(shown)
        )
    if archive is not None:
        left_out = LeftOut(archive.replies, archive.retweets)
    if not posts:
        told = archive is not None or left_out.replies or left_out.retweets
        skipped = f" ({_skipped_text(left_out)})" if told else ""
        raise BadRequest(f"Nothing to import: {path.name} has no posts{skipped}")
    return ImportFile(posts, left_out.replies, left_out.retweets, dates)


@dataclass
class ImportResult:
    post_ids: list[str] = field(default_factory=list)  # in the file's order
    scheduled: int = 0
    published: int = 0
    duplicates: int = 0  # published rows the workspace (or the file) already had
    existing: int = 0  # rows naming a post of the workspace (or repeating an id), skipped
    updated: int = 0  # such rows whose post took their content (`update`)


def import_posts(
    session: Session,
    workspace_id: str,
    posts: Sequence[ImportedPost],
    *,
    user_id: str | None = None,
    now: datetime | None = None,
    update: bool = False,
) -> ImportResult:
    """Create each post with its conversation and first version (source "import"), as
    a draft or, marked scheduled, scheduled at its date. A row naming a post of the
    workspace is skipped, or with `update` replaces its content and theme. Never
    commits: the caller's transaction makes it all or nothing."""
    now = now or utcnow()
    # Naive UTC, as the store keeps it: nothing to convert for each of 100,000 rows.
    start = utcnow().replace(tzinfo=None)
    result = ImportResult()
    split = split_by_id(session, workspace_id, posts)
    result.existing = split.repeats + len(split.existing)
    if update:
        result.updated = update_existing(session, workspace_id, split.existing, now)
        result.existing -= result.updated
    posts, result.duplicates = without_duplicates(session, workspace_id, split.fresh)
    made = Made()
    batches = import_batches(posts, workspace_id, user_id=user_id, start=start, now=now, made=made)
    insert_batches(session.connection(), batches)
    result.post_ids, result.scheduled, result.published = (
        made.post_ids,
        made.scheduled,
        made.published,
    )
    return result


# --------------------------------------------------------------------------- reading


def _import_text(path: Path, suffix: str) -> str:
    if suffix not in (".csv", ".json"):
        if suffix == ".js":
            _read_text(path)  # a file that cannot be read says so first
        raise BadRequest(
            f"Cannot import {path.name}: unknown file type {suffix or '(none)'!r}, "
            "use a .csv or .json file (or X's archive file tweets.js)"
        )
    return _read_text(path)


def _skipped_text(left_out: LeftOut) -> str:
    return (
        f"{left_out.replies} {'reply' if left_out.replies == 1 else 'replies'} and "
        f"{left_out.retweets} {'retweet' if left_out.retweets == 1 else 'retweets'} skipped"
    )


def _read_text(path: Path) -> str:
    data = read_regular_file(path, MAX_TEXT_FILE_BYTES)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadRequest(
            f"Cannot read {path.name}: not UTF-8 text (byte {error.start + 1})"
        ) from None


# Wider than any file of posts: a header of a million columns would make each row a
# dict of a million entries (a 16 MB file took 475 MB).
MAX_CSV_COLUMNS = 200


def _csv_records(text: str, left_out: LeftOut) -> Iterator[tuple[str, dict[str, Any]]]:
    """One record at a time, so that a large file is never held twice as dicts."""
    # Counted on the first line before the csv module makes a string of every column.
    first_line = text[: text.find("\n") if "\n" in text else len(text)]
    if first_line.count(",") >= MAX_CSV_COLUMNS:
        raise BadRequest(
            f"The CSV file has {first_line.count(',') + 1:,} columns: a file of posts has "
            f"at most {MAX_CSV_COLUMNS}"
        )
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise BadRequest("Nothing to import: the CSV file is empty")
        if len(header) > MAX_CSV_COLUMNS:
            raise BadRequest(
                f"The CSV file has {len(header):,} columns: a file of posts has at most "
                f"{MAX_CSV_COLUMNS}"
            )
        columns = [name.strip().lower() for name in header]
        export = analytics_export(columns)
        if export is not None:
            yield from _export_records(reader, columns, export, left_out)
            return
        if not any(name in _FIELDS["content"] for name in columns):
            raise BadRequest(
                "The CSV file has no content column: its first row must name the columns "
                "(date,theme,status,post_id,content)"
            )
        # Numbered as a spreadsheet shows them (a multi-line cell is still one row).
        for number, row in enumerate(reader, start=2):
            if len(row) > MAX_CSV_COLUMNS:
                raise BadRequest(f"row {number}: {len(row):,} cells, more than the header's")
            if any(cell.strip() for cell in row):  # skip blank lines
                cells = [plain_cell(cell) for cell in row]  # as `posts export` quoted them
                yield f"row {number}", dict(zip(columns, cells, strict=False))
    except csv.Error as error:
        raise BadRequest(f"Not a valid CSV file (near line {reader.line_num}): {error}") from None


def _export_records(
    reader: Iterator[list[str]],
    columns: list[str],
    export: AnalyticsExport,
    left_out: LeftOut,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The published records of an X analytics export, its replies and retweets
    counted and left out. A row that cannot be read is named, as any other row."""
    for number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        where = f"row {number}"
        try:
            found = export_record(export, dict(zip(columns, row, strict=False)))
        except BadRequest as error:  # reported with the other rows': nothing is imported
            left_out.problems.append(f"{where}: {error.message}")
            continue
        if found == "reply":
            left_out.replies += 1
        elif found == "retweet":
            left_out.retweets += 1
        else:
            yield where, found


def _json_records(text: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadRequest(
            f"Not valid JSON (line {error.lineno}, column {error.colno}): {error.msg}"
        ) from None
    except RecursionError:  # arrays or objects nested thousands deep: no post is
        raise BadRequest("The JSON file nests its lists or objects too deep to be posts") from None
    if isinstance(data, dict) and isinstance(data.get("posts"), list):
        data = data["posts"]
    if not isinstance(data, list):
        raise BadRequest('The JSON file must hold a list of posts, or {"posts": [...]}')
    records: list[tuple[str, dict[str, Any]]] = []
    for number, item in enumerate(data, start=1):
        where = f"item {number}"
        if not isinstance(item, dict):
            raise BadRequest(f"{where}: expected an object with a content key")
        records.append((where, {str(key).lower(): value for key, value in item.items()}))
    return records


# --------------------------------------------------------------------------- checking


def _valid_post(
    where: str, record: Mapping[str, Any], now: datetime, dates: ImportDates
) -> ImportedPost:
    content = _field(record, "content")
    status_text = (_field(record, "status") or implied_status(record)).strip().lower()
    date_text = (_field(record, "date") or "").strip()
    theme = (_field(record, "theme") or "").strip() or None
    post_id = _post_id(record)
    fields = row_fields(record)

    text = valid_content(content.replace("\r\n", "\n").replace("\r", "\n") if content else None)
    # A control character refuses its row, as a NUL does, rather than being dropped:
    # the file is the user's to fix, and the text stays what they wrote.
    if theme is not None and (problem := text_problem(theme, "theme")) is not None:
        raise BadRequest(problem)
    if status_text not in IMPORT_STATUSES:
        raise BadRequest(f"unknown status {status_text!r}: use draft, scheduled or published")
    if status_text == PostStatus.PUBLISHED:
        history = published_history(record, now, dates.read)
        return ImportedPost(
            where, text, PostStatus.PUBLISHED, None, theme, history, post_id, fields
        )
    moment = None
    if date_text:
        try:
            moment = dates.read(date_text)
        except DateOutOfRange as error:
            raise BadRequest(f"date: {error}") from None
        except ValueError:
            raise BadRequest(
                f"bad date {date_text!r}: use ISO 8601, e.g. 2026-12-01T09:00:00Z"
            ) from None
    if status_text == PostStatus.SCHEDULED:
        if moment is None:
            raise BadRequest("a scheduled post needs a date")
        # A row with an id may be a post the workspace has (an export read back after
        # its time passed): skipped, not refused; if it is new, import_posts refuses
        # the past date when it creates it.
        if moment <= now and post_id is None:
            raise BadRequest(f"a scheduled post needs a future date (got {iso(moment)})")
        return ImportedPost(
            where, text, PostStatus.SCHEDULED, moment, theme, post_id=post_id, fields=fields
        )
    return ImportedPost(where, text, PostStatus.DRAFT, None, theme, post_id=post_id, fields=fields)


def _post_id(record: Mapping[str, Any]) -> str | None:
    """The row's post id, when it can be one of ours: another tool's numbering (a
    number, a tweet id) is not an error, only not ours."""
    for key in _FIELDS["id"]:
        value = record.get(key)
        if isinstance(value, str) and normal_id(value):
            return normal_id(value)
    return None


def _field(record: Mapping[str, Any], name: str) -> str | None:
    """The first non-empty value among the field's accepted names."""
    for key in _FIELDS[name]:
        value = record.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise BadRequest(f"{name} must be text, not {type(value).__name__}")
        return value
    return None
