"""A post's preview per network, one shape for every face: `posts preview --json`,
GET .../post/{workspaceId}/{postId}/preview and the MCP tool preview_post answer
these models (camelCase, as SPEC.md names fields; times ISO 8601 UTC)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ChosenBy = Literal["asked", "publications", "accounts", "networks"]


class MediaView(BaseModel):
    kind: str = Field(description="image or document (a carousel's PDF)")
    mimeType: str
    bytes: int
    label: str = Field(description="An image's alt text, a document's title.")
    note: str = Field(default="", description="What the network does to it, if anything.")


class PartView(BaseModel):
    number: int = Field(description="1 for the post itself, then its thread's parts.")
    kind: str = Field(
        description="post, reply (a thread's next part), message (Discord's next message), "
        "caption (Telegram's text under media) or document"
    )
    text: str = Field(description="The text as a reader sees it.")
    count: int = Field(description="The text's length as the network counts it.")
    limit: int = Field(description="What the network takes in one part, in the same unit.")
    unit: str = Field(description="What `count` counts: characters, graphemes ...")
    media: list[MediaView] = Field(default_factory=list, description="What this part carries.")


class FoldView(BaseModel):
    visible: str = Field(description="What the feed shows before the fold.")
    at: int = Field(description="Where the fold falls: characters of the text before it.")
    hidden: int = Field(description="Characters behind the fold.")
    marker: str = Field(description='What the feed shows there ("…see more").')
    reason: str = Field(description="Why it falls there (the characters or the lines).")


class LinkCardView(BaseModel):
    url: str = Field(description="The link the card would be made from.")
    part: int = Field(description="The part that carries the link.")
    card: bool = Field(description="Whether the network shows a card for it.")
    title: str | None = Field(
        description="The card's title where known without fetching the page (Bluesky's "
        "card carries the URL as its title); null: the page's own, read by the network."
    )
    how: str = Field(description="What the network does with the link, in a sentence.")


class FirstCommentView(BaseModel):
    text: str
    supported: bool = Field(description="Whether it goes under the post on this network.")
    how: str = Field(description="Where it goes, or why it does not.")
    count: int | None = Field(default=None, description="Its length as the network counts it.")
    limit: int | None = Field(default=None, description="What one reply takes there.")


class NetworkPreview(BaseModel):
    network: str
    networkName: str = Field(description="The network's name as people write it.")
    accountId: str | None = Field(description="The connected account; null: the network alone.")
    account: str | None = Field(description="Its handle; null: the network alone.")
    connected: bool
    rules: list[str] = Field(
        default_factory=list, description="The network's limits that shape this preview."
    )
    parts: list[PartView] = Field(
        default_factory=list, description="The parts the post becomes, in order."
    )
    fold: FoldView | None = Field(
        default=None,
        description="Where the feed folds the text (LinkedIn's ...see more); null: none.",
    )
    linkCard: LinkCardView | None = Field(
        default=None, description="The first link and its card; null: none."
    )
    leftOut: list[str] = Field(
        default_factory=list, description="Media the network does not take, and why."
    )
    firstComment: FirstCommentView | None = Field(
        default=None, description="Null: the post has none."
    )
    warnings: list[str] = Field(
        default_factory=list, description="What may read badly or be refused."
    )
    error: str | None = Field(
        default=None,
        description="Why the network would refuse the post (then `parts` is empty).",
    )


class PostMediaView(BaseModel):
    images: int = Field(description="Slide images the outbox sends with the post.")
    slides: int = Field(description="Slides the carousel has (0: no carousel).")
    document: str | None = Field(description="The carousel's PDF title; null: none.")
    note: str = Field(default="")


class PostPreview(BaseModel):
    postId: str
    postContent: str = Field(description="The post's text, as written.")
    status: str
    scheduledAt: str | None
    publishedAt: str | None
    numberParts: bool
    chosenBy: ChosenBy = Field(
        description="Where the networks come from: asked (to=), the post's publications, "
        "every connected account, or every network when none is connected."
    )
    note: str = Field(description="Which networks these are, in a sentence.")
    media: PostMediaView
    firstComment: str | None
    networks: list[NetworkPreview]


class PreviewResponse(BaseModel):
    success: bool
    data: PostPreview
