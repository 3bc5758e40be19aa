#!/usr/bin/env python3
"""Previews per network: the time `posts preview` takes for a long post over all nine
networks (issue 41, item 5).

Builds a store in a temporary home (SQLite, or PostgreSQL with --database-url, in a
schema of its own dropped at the end) holding one long post: paragraphs of about
2,900 characters (under LinkedIn's 3,000, over every thread limit), links and
hashtags, a carousel of 8 slides with its PDF in the file store (the outbox sends the
PDF and the first 4 slides), and a first comment. Then times, after a warm-up:

1. the whole preview as every face builds it (publishing.preview.service.preview_post:
   the post, its accounts, carousel and first comment read from the store, the media
   from the file store, the nine networks planned): p50/p95/max;
2. the same with numbered parts (--number-parts: each split is redone with the marker's
   room kept);
3. the nine networks' plans alone (no store, no files), and each network's share.

Exits 1 when the whole preview's p95 reaches the target (0.25 s: a preview answers
at once, in a terminal as on the API).

    .venv/bin/python bench/preview.py
    .venv/bin/python bench/preview.py --runs 500
    .venv/bin/python bench/preview.py --database-url postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable

from PIL import Image

from harness import Samples, Table, bench_home, environ, machine_line, ms, repeat_calls
from socialgen.app.runtime import Runtime
from socialgen.files.backends import files_of
from socialgen.kit.ids import new_id
from socialgen.posts.service import create_draft
from socialgen.publishing.followups.service import set_first_comment
from socialgen.publishing.outbox.media import post_media
from socialgen.publishing.preview.service import network_preview, preview_post
from socialgen.publishing.registry import BUILT_IN
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Carousel, CarouselSlide
from socialgen.workspaces.service import default_workspace

TARGET_SECONDS = 0.25
SCHEMA = "socialgen_bench_preview"
SENTENCES = (
    "We shipped every week for a year, and the habit changed how the whole team works.",
    "Small releases meant small risks, fast feedback and fewer meetings about what is next.",
    "Every release taught us something about our customers that no roadmap had predicted.",
    "The changelog became the place people read first: https://example.com/changelog.",
    "Onboarding got shorter each month because support saw the friction before we did.",
    "Pricing changes went out behind a flag and came back with real numbers, not opinions.",
)
COMMENT = "The slides and the recording of the talk: https://example.com/talk #shipping"


def long_text(characters: int = 2900) -> str:
    paragraphs: list[str] = []
    index = 0
    while True:
        paragraph = " ".join(SENTENCES[(index + k) % len(SENTENCES)] for k in range(3))
        if sum(len(p) + 2 for p in paragraphs) + len(paragraph) > characters - 60:
            break
        paragraphs.append(paragraph)
        index += 1
    return "\n\n".join(paragraphs) + "\n\nRead it all: https://example.com/a-year #shipping #teams"


def png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1080, 1350), colour).save(out, "PNG")
    return out.getvalue()


def make_post(runtime: Runtime, slides: int = 8) -> tuple[str, str]:
    """(workspace id, post id) of the long post with its carousel and first comment."""
    engine, files = runtime.open_store(), files_of(runtime)
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        post = create_draft(session, workspace.id, long_text())
        carousel_id = new_id()
        folder = f"carousels/{carousel_id}"
        files.save(workspace.id, f"{folder}/carousel.pdf", b"%PDF-1.4 " + bytes(400_000))
        session.add(
            Carousel(
                id=carousel_id,
                workspace_id=workspace.id,
                post_id=post.id,
                name="A year of weekly releases",
                prompt="a year of weekly releases",
                template="minimal",
                pdf_file=f"{folder}/carousel.pdf",
                thumbnail_file=f"{folder}/thumbnail.png",
            )
        )
        for position in range(slides):
            key = f"{folder}/slide-{position}.png"
            files.save(workspace.id, key, png(("teal", "navy", "orange", "gold")[position % 4]))
            session.add(
                CarouselSlide(
                    carousel_id=carousel_id,
                    position=position,
                    title=f"Week {position + 1}",
                    content="What shipped, and what we learned",
                    image_prompt="p",
                    image_file=key,
                )
            )
        post.carousel = {"carouselId": carousel_id}
        session.add(post)
        session.flush()
        set_first_comment(session, workspace.id, post.id, COMMENT)
        return workspace.id, post.id


def run(args: argparse.Namespace) -> bool:
    runtime = Runtime()
    workspace_id, post_id = make_post(runtime)
    engine, files = runtime.open_store(), files_of(runtime)

    def whole(number_parts: bool) -> Callable[[], object]:
        return lambda: preview_post(
            engine, workspace_id, post_id, BUILT_IN, number_parts=number_parts, files=files
        )

    with read_session(engine) as session:
        from socialgen.posts.service import get_post

        post = get_post(session, workspace_id, post_id)
    media = post_media(engine, files, post)
    shown = whole(False)()
    print(f"post: {len(post.content)} characters, {len(media)} media, nine networks:")
    parts = Table("network", "parts", "media", "fold", "card", "error")
    for network in shown.networks:  # type: ignore[attr-defined]
        parts.add(
            network.network,
            len(network.parts),
            sum(len(part.media) for part in network.parts),
            "yes" if network.fold else "-",
            "yes" if network.linkCard and network.linkCard.card else "-",
            (network.error or "-")[:40],
        )
    parts.print()
    cases: dict[str, Samples] = {
        "whole preview (store, files, 9 networks)": repeat_calls(whole(False), args.runs, 5),
        "whole preview, --number-parts": repeat_calls(whole(True), args.runs, 5),
        "9 networks' plans alone": repeat_calls(
            lambda: [
                network_preview((n, None, None), post.content, media, False, COMMENT)
                for n in BUILT_IN
            ],
            args.runs,
            5,
        ),
    }
    for network in BUILT_IN:
        cases[f"  {network}"] = repeat_calls(
            lambda n=network: network_preview((n, None, None), post.content, media, False, COMMENT),  # type: ignore[misc]
            args.runs,
            5,
        )
    table = Table("case", "p50", "p95", "max")
    for name, samples in cases.items():
        table.add(name, ms(samples.median, 2), ms(samples.p95, 2), ms(samples.max, 2))
    print()
    table.print()
    p95 = cases["whole preview (store, files, 9 networks)"].p95
    within = p95 < TARGET_SECONDS
    print(
        f"\nwhole preview p95 {ms(p95, 2)} {'<' if within else '>='} target {ms(TARGET_SECONDS, 0)}"
    )
    runtime.close()
    return within


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--database-url", default=None, help="PostgreSQL (default: SQLite)")
    args = parser.parse_args()
    print(machine_line())
    with bench_home("socialgen-bench-preview-") as home:
        settings: dict[str, str | None] = {"SOCIALGEN_HOME": str(home)}
        if args.database_url:
            separator = "&" if "?" in args.database_url else "?"
            settings["SOCIALGEN_DATABASE_URL"] = (
                f"{args.database_url}{separator}options=-csearch_path%3D{SCHEMA}"
            )
            _schema(args.database_url, create=True)
        else:
            settings["SOCIALGEN_DATABASE_URL"] = None
        try:
            with environ(settings):
                ok = run(args)
        finally:
            if args.database_url:
                _schema(args.database_url, create=False)
    sys.exit(0 if ok else 1)


def _schema(url: str, *, create: bool) -> None:
    import sqlalchemy as sa

    from socialgen.config import normalise_database_url

    engine = sa.create_engine(normalise_database_url(url))
    with engine.begin() as connection:
        connection.execute(sa.text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        if create:
            connection.execute(sa.text(f"CREATE SCHEMA {SCHEMA}"))
    engine.dispose()


if __name__ == "__main__":
    main()
