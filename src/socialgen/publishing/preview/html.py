"""`socialgen posts preview ID --html FILE`: the preview as one self-contained page.

As the insights page (insights/html_page.py): styles inline, no script, no font, no
image, nothing to fetch, and a Content-Security-Policy of `default-src 'none'` so a
browser refuses anything remote even if some text slipped through. Every text from
the store (the post, handles, alt texts, the first comment) is escaped; links are
shown, never made clickable. Times are in the creator's zone, which the page names.
"""

from __future__ import annotations

from html import escape
from zoneinfo import ZoneInfo

from socialgen.kit.clock import utcnow
from socialgen.kit.control_chars import printable
from socialgen.kit.local_time import local_moment
from socialgen.publishing.preview.schemas import (
    FoldView,
    NetworkPreview,
    PartView,
    PostPreview,
)
from socialgen.publishing.preview.terminal import post_line


def render_page(preview: PostPreview, zone: ZoneInfo) -> str:
    head = (
        "<h1>How it reads, network by network</h1>\n"
        f"<p class=lead>{escape(post_line(preview, zone))}</p>"
    )
    if preview.note:
        head += f"\n<p class=note>{escape(preview.note)}</p>"
    shared = _shared(preview)
    sections = "\n".join(_network(network) for network in preview.networks)
    footer = (
        f"Previewed {escape(local_moment(utcnow(), zone))} by socialgen posts preview: "
        "nothing was sent or fetched."
    )
    page = PAGE.format(body=f"{head}\n{shared}\n{sections}", footer=footer)
    # Control characters as symbols: the page is read in terminals too (`cat`, `less`).
    return printable(page)


def _shared(preview: PostPreview) -> str:
    items = []
    media = preview.media
    if media.document is not None or media.images:
        what = []
        if media.document is not None:
            what.append(f"the carousel “{media.document}” as a PDF")
        if media.images:
            what.append(f"{media.images} slide image{'s' if media.images != 1 else ''}")
        items.append(f"<li>Media: {escape(' and '.join(what))}. {escape(media.note)}</li>")
    if preview.firstComment is not None:
        items.append(f"<li>First comment: <q>{escape(preview.firstComment)}</q></li>")
    return f"<ul class=shared>{''.join(items)}</ul>" if items else ""


def _network(network: NetworkPreview) -> str:
    who = network.account or "no account: the network's own rules"
    title = f"{escape(network.networkName)} <span class=who>{escape(who)}</span>"
    blocks: list[str] = []
    if network.error:
        blocks.append(f"<p class=refused>Refused: {escape(network.error)}</p>")
    if network.rules:
        rules = "".join(f"<li>{escape(rule)}</li>" for rule in network.rules)
        blocks.append(f"<ul class=rules>{rules}</ul>")
    total = len(network.parts)
    blocks += [
        _part(part, total, network.fold if part.number == 1 else None) for part in network.parts
    ]
    if network.linkCard is not None:
        card = network.linkCard
        shown = f" titled “{card.title}”" if card.title else ""
        label = "Link card" if card.card else "Link, no card"
        blocks.append(
            f"<div class='card{'' if card.card else ' none'}'><span class=label>{label}</span> "
            f"<code>{escape(card.url)}</code>{escape(shown)} (part {card.part})<br>"
            f"{escape(card.how)}</div>"
        )
    if network.firstComment is not None:
        comment = network.firstComment
        counted = f" ({comment.count}/{comment.limit})" if comment.count is not None else ""
        text = f"<p class=text>{escape(comment.text)}</p>" if comment.supported else ""
        blocks.append(
            f"<div class=comment><span class=label>First comment</span> "
            f"{escape(comment.how)}{escape(counted)}{text}</div>"
        )
    blocks += _list("Left out", network.leftOut, "left")
    blocks += _list("Heads-up", network.warnings, "warn")
    return f"<section>\n<h2>{title}</h2>\n" + "\n".join(blocks) + "\n</section>"


def _part(part: PartView, total: int, fold: FoldView | None) -> str:
    media = ""
    if part.media:
        names = "".join(
            f"<li>{escape(item.kind)} {escape(item.mimeType)}, {item.bytes:,} bytes"
            f"{': ' + escape(item.label) if item.label else ''}"
            f"{' (' + escape(item.note) + ')' if item.note else ''}</li>"
            for item in part.media
        )
        media = f"<ul class=media>{names}</ul>"
    over = " over" if part.count > part.limit else ""
    head = (
        f"<div class=meta>Part {part.number} of {total} · {escape(part.kind)} · "
        f"<span class='count{over}'>{part.count:,}/{part.limit:,}</span> "
        f"{escape(part.unit)}</div>"
    )
    return f"<div class=part>{head}{_text(part.text, fold)}{media}</div>"


def _text(text: str, fold: FoldView | None) -> str:
    if fold is None:
        return f"<p class=text>{escape(text)}</p>"
    hidden = text[fold.at :]
    return (
        f"<p class=text>{escape(fold.visible)}<span class=fold>{escape(fold.marker)}</span>"
        f"<span class=hidden>{escape(hidden)}</span></p>"
        f"<p class=note>The feed folds here: {escape(fold.reason)}; "
        f"{fold.hidden:,} characters behind it.</p>"
    )


def _list(title: str, lines: list[str], style: str) -> list[str]:
    if not lines:
        return []
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return [f"<div class={style}><span class=label>{title}</span><ul>{items}</ul></div>"]


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>How it reads, network by network: socialgen posts preview</title>
<style>
body {{ font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #24292f;
  max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }}
h1 {{ font-size: 1.6rem; margin-bottom: .2rem; }}
h2 {{ font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #d0d7de; }}
.lead {{ font-size: 1.1rem; }}
.note, footer, .meta, .rules, .who {{ color: #57606a; font-size: .9rem; }}
.part {{ border: 1px solid #d0d7de; border-radius: 8px; padding: .6rem .9rem;
  margin: .6rem 0; }}
.text {{ white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; }}
.fold {{ color: #57606a; font-weight: 600; }}
.hidden {{ color: #8c959f; }}
.count.over, .refused {{ color: #cf222e; }}
.label {{ font-weight: 600; }}
.card, .comment, .left, .warn {{ margin: .6rem 0; padding: .4rem .8rem;
  border-left: 3px solid #d0d7de; }}
.card.none {{ color: #57606a; }}
.warn ul, .left ul {{ margin: .2rem 0; }}
.warn {{ border-color: #bf8700; }}
.left {{ border-color: #cf222e; }}
code {{ overflow-wrap: anywhere; }}
</style>
</head>
<body>
{body}
<footer><p>{footer}</p></footer>
</body>
</html>
"""
