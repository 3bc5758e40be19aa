"""`socialgen posts preview ID` in a terminal: each network's parts as they read, the
fold, the link card, the first comment, what is left out and what to watch.

The post is named by its words, never its id; a time is in the creator's zone, named.
Everything is printed through `styled` (no markup: a post saying "[beta]" keeps it,
control characters show as symbols)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from socialgen.kit.local_time import local_moment
from socialgen.publishing.preview.schemas import NetworkPreview, PartView, PostPreview

if TYPE_CHECKING:
    from rich.console import Console

SNIPPET = 60


def post_line(preview: PostPreview, zone: ZoneInfo) -> str:
    """“First words of the post…” (scheduled for 2026-12-16 09:00 Europe/Berlin)."""
    words = " ".join(preview.postContent.split())
    snippet = words if len(words) <= SNIPPET else words[: SNIPPET - 1].rstrip() + "…"
    when = preview.status
    if preview.scheduledAt is not None and preview.status == "scheduled":
        when = f"scheduled for {local_moment(preview.scheduledAt, zone)}"
    elif preview.publishedAt is not None and preview.status == "published":
        when = f"published {local_moment(preview.publishedAt, zone)}"
    return f"“{snippet}” ({when})"


def print_preview(out: Console, preview: PostPreview, zone: ZoneInfo) -> None:
    from socialgen.cli.support import styled

    out.print(styled(("Preview of ", "bold"), post_line(preview, zone)))
    if preview.note:
        out.print(preview.note)
    if preview.media.document is not None or preview.media.images:
        document = preview.media.document
        what = [f"the carousel “{document}” as a PDF"] if document is not None else []
        if preview.media.images:
            what.append(f"{preview.media.images} slide image(s)")
        out.print(f"Media: {' and '.join(what)}. {preview.media.note}".rstrip())
    if preview.firstComment is not None:
        out.print(f"First comment: {preview.firstComment}")
    for network in preview.networks:
        out.print()
        _network(out, network)


def _at(out: Console, indent: int, *parts: str | tuple[str, str]) -> None:
    """A line (or paragraph) indented by `indent`, its wrapped lines too, with no
    trailing blanks (rich's Padding would pad each line to the widest)."""
    from rich.text import Text

    from socialgen.cli.support import styled

    room = max(out.width - indent, 20)
    for line in styled(*parts).wrap(out, room):
        line.rstrip()
        out.print(Text(" " * indent) + line if line.plain else line, soft_wrap=True)


def _network(out: Console, network: NetworkPreview) -> None:
    from socialgen.cli.support import styled

    who = network.account or "(no account: the network's own rules)"
    out.print(styled((network.networkName, "bold"), f"  {who}"))
    if network.error:
        _at(out, 2, ("Refused: ", "red"), network.error)
        return
    for rule in network.rules:
        _at(out, 2, (f"· {rule}", "dim"))
    for part in network.parts:
        _part(out, part, len(network.parts), network)
    card = network.linkCard
    if card is not None:
        label = "Link card" if card.card else "Link, no card"
        _at(out, 2, (f"{label}: ", "cyan"), f"{card.url} (part {card.part})")
        _at(out, 4, card.how)
    if network.firstComment is not None:
        comment = network.firstComment
        counted = f" ({comment.count}/{comment.limit})" if comment.count is not None else ""
        _at(out, 2, ("First comment: ", "cyan"), comment.how + counted)
    for line in network.leftOut:
        _at(out, 2, ("Left out: ", "yellow"), line)
    for line in network.warnings:
        _at(out, 2, ("Heads-up: ", "yellow"), line)


def _part(out: Console, part: PartView, total: int, network: NetworkPreview) -> None:
    carried = f" · {len(part.media)} file(s)" if part.media else ""
    _at(
        out,
        2,
        f"Part {part.number} of {total} · {part.kind} · ",
        (f"{part.count}/{part.limit}", "red" if part.count > part.limit else "green"),
        f" {part.unit}{carried}",
    )
    fold = network.fold if part.number == 1 else None
    if fold is None:
        _at(out, 4, part.text)
    else:
        _at(out, 4, fold.visible, (fold.marker, "bold"))
        _at(out, 4, (f"(the feed folds here: {fold.reason}; behind it:)", "dim"))
        _at(out, 4, (part.text[fold.at :].strip(), "dim"))
    for item in part.media:
        label = f": {item.label}" if item.label else ""
        note = f" ({item.note})" if item.note else ""
        _at(out, 4, (f"+ {item.kind} {item.mimeType}{label}{note}", "dim"))
