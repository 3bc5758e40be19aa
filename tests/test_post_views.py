"""Raw stored values to SPEC.md's formats, the same on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

from socialgen.kit.clock import iso
from socialgen.posts import repository_listing
from socialgen.posts.views import PostRow, raw_json, raw_timestamp


def test_sqlite_text_and_driver_datetimes_format_alike() -> None:
    moment = datetime(2026, 11, 22, 4, 53, 51, 128000, tzinfo=UTC)
    assert raw_timestamp("2026-11-22 04:53:51.128000") == iso(moment) == "2026-11-22T04:53:51.128Z"
    assert raw_timestamp(moment) == iso(moment)
    assert raw_timestamp("2026-11-22 04:53:51") == "2026-11-22T04:53:51.000Z"
    assert raw_timestamp(None) is None


def test_json_text_and_decoded_values_alike() -> None:
    assert raw_json('{"id": "c1"}') == {"id": "c1"} == raw_json({"id": "c1"})
    assert raw_json("null") is None
    assert raw_json(None) is None


def test_the_listing_selects_postrow_fields_by_name_in_order() -> None:
    # post_views turns each row into a PostRow by position; this is what makes it right.
    assert [column.name for column in repository_listing._POST_COLUMNS] == list(PostRow._fields)
