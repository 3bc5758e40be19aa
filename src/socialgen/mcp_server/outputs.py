"""The tools' structured results where no SPEC.md shape fits as it is. The others
answer the service's own shapes: a post list, a post, a batch's or calendar's
completion event, a publication list, post metrics."""

from __future__ import annotations

from pydantic import BaseModel, Field

from socialgen.events.carousel import StoredCarousel
from socialgen.publishing.accounts.schemas import AccountView
from socialgen.publishing.outbox.schemas import PublicationView
from socialgen.styles.schemas import ContentStyleView, StylePostView


class WrittenPost(BaseModel):
    postId: str = Field(description="The saved draft (or the post's new version).")
    conversationId: str = Field(description="Its conversation: pass it on to refine it.")
    content: str = Field(description="The post's text as saved.")
    refinementQuestions: list[str] = Field(description="Up to 3 questions to refine it.")


class ChatAnswer(BaseModel):
    """A general answer (response, suggestedQuestions) or, when a post was asked for,
    the post written (postId, content, refinementQuestions)."""

    conversationId: str = Field(description="The conversation: pass it on to continue.")
    response: str | None = Field(default=None, description="The answer, for a question.")
    suggestedQuestions: list[str] = Field(default_factory=list)
    postId: str | None = Field(default=None, description="The draft written, for a post.")
    content: str | None = Field(default=None, description="Its text.")
    refinementQuestions: list[str] = Field(default_factory=list)


class MadeCarousel(StoredCarousel):
    pdfResource: str = Field(
        description="The PDF as an MCP resource (read it with resources/read)."
    )


class ScheduledPost(BaseModel):
    postId: str
    status: str
    scheduledAt: str | None
    publications: list[PublicationView] = Field(
        description="Where it goes at that time (the accounts named, now or before)."
    )


class AccountList(BaseModel):
    accounts: list[AccountView] = Field(description="Never with their secrets.")


class StyleList(BaseModel):
    count: int
    styles: list[ContentStyleView]


class AddedStylePosts(BaseModel):
    count: int
    posts: list[StylePostView]


class RankedPost(BaseModel):
    postId: str
    score: float = Field(description="The chance it beats the creator's typical recent post.")


class RankedDrafts(BaseModel):
    ranked: list[RankedPost] = Field(description="Best first.")
    confident: bool = Field(description="Whether the order is worth following.")
    heldOutAccuracy: float | None = Field(
        description="Share of the latest posts' pairs ordered right (0.5 is chance); null "
        "without enough history."
    )
    pairs: int = Field(description="How many pairs that was measured on.")
    posts: int = Field(description="Published posts the ranker learnt from.")
