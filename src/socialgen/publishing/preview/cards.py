"""The first link of a post and whether each network shows a card for it.

Nothing is fetched: a preview is offline. A card's title is the page's own, read by
the network when the post goes live, so it is unknown here, except on Bluesky, whose
card socialgen makes itself with the URL as its title (the adapter fetches no page on
the user's word alone). Which link and which part: each network's own rule, on the
parts the plan made.
"""

from __future__ import annotations

from socialgen.publishing.preview.schemas import LinkCardView
from socialgen.publishing.preview.shapes import NAMES, Plan

WITH_IMAGES = "No card: the part with the link carries images, and {name} shows one or the other"
NO_CARD = {
    "linkedin": "No card: a link in a post made through LinkedIn's API shows as text (a card "
    "needs an article post, which socialgen does not make)",
    "nostr": "No card in the note: it carries the link as text; a reader's client may show "
    "a preview of its own",
    "pixelfed": "No card: a photo post's caption shows the link as text",
}
CARD = {
    "bluesky": "Bluesky shows a card made from the URL itself, the URL as its title "
    "(socialgen fetches no page to make it)",
    "mastodon": "The instance makes a card from the page (its title and image) once the post "
    "is live, when the page offers one",
    "x": "X makes a card from the part's last link when the page has card tags",
    "threads": "Threads shows a preview of the first link of a text post",
    "telegram": "Telegram shows a preview of the message's first link",
    "discord": "Discord shows an embed of the page under the message, when the site offers one",
}


def link_card(network: str, text: str, plan: Plan) -> LinkCardView | None:
    """The card `network` makes for the post's first link; None when it has none."""
    found = _first_link(network, text, plan)
    if found is None:
        return None
    url, number = found
    if network in NO_CARD:
        return LinkCardView(url=url, part=number, card=False, title=None, how=NO_CARD[network])
    blocked = _blocked_by_media(network, number, plan)
    if blocked:
        return LinkCardView(url=url, part=number, card=False, title=None, how=blocked)
    title = url if network == "bluesky" else None
    return LinkCardView(url=url, part=number, card=True, title=title, how=CARD[network])


def _blocked_by_media(network: str, number: int, plan: Plan) -> str:
    """Why media keep the card away, or "" (the networks' rules for a post with both)."""
    name = NAMES[network]
    if network == "bluesky" and any(item.kind == "image" for p in plan.parts for item in p.media):
        # Its adapter makes no card at all for a post with images.
        return WITH_IMAGES.format(name=name)
    if network in ("mastodon", "x", "threads") and plan.images_on(number):
        return WITH_IMAGES.format(name=name)
    if network == "telegram":
        carrier = next(p for p in plan.parts if p.number == number)
        if carrier.kind not in ("post", "reply"):
            return "No preview: Telegram shows none for a link in a caption under media"
    return ""


def _first_link(network: str, text: str, plan: Plan) -> tuple[str, int] | None:
    """(the link the card is made from, the number of the part that carries it)."""
    if network == "x":
        return _x_link(plan)
    if network == "bluesky":
        from socialgen.publishing.networks.bluesky.text import first_link

        url = first_link(text)
    elif network == "threads":
        from socialgen.publishing.networks.threads.text import LINK

        match = LINK.search(text)
        url = match.group(0) if match else None
    else:
        # A scheme, then anything up to a blank, without a sentence's last punctuation:
        # how Mastodon's extractor (and every other network here) finds a link.
        from socialgen.publishing.networks.mastodon.text import URL

        match = URL.search(text)
        url = match.group(0) if match else None
    if url is None:
        return None
    for part in plan.parts:
        if url in part.text:
            return url, part.number
    return url, 1


def _x_link(plan: Plan) -> tuple[str, int] | None:
    """X's card: the last link of the first part that has one."""
    from socialgen.publishing.networks.x.text import normalised, url_spans

    for part in plan.parts:
        text = normalised(part.text)
        spans = url_spans(text)
        if spans:
            start, end = spans[-1]
            return text[start:end], part.number
    return None
