"""All tables; importing this package registers them on SQLModel.metadata."""

from socialgen.store.tables.auth import AccessToken, ApiKey
from socialgen.store.tables.carousels import Carousel, CarouselSlide
from socialgen.store.tables.posts import Conversation, Message, Post, PostStatus, PostVersion
from socialgen.store.tables.publishing import (
    MetricSnapshot,
    Network,
    Publication,
    PublicationState,
    SocialAccount,
)
from socialgen.store.tables.quota_ledger import ProcessLease, QuotaReservation
from socialgen.store.tables.styles import ContentStyle, StylePost
from socialgen.store.tables.workspace import Membership, Role, User, Workspace, WorkspaceUsage

__all__ = [
    "AccessToken",
    "ApiKey",
    "Carousel",
    "CarouselSlide",
    "ContentStyle",
    "Conversation",
    "Membership",
    "Message",
    "MetricSnapshot",
    "Network",
    "Post",
    "PostStatus",
    "PostVersion",
    "ProcessLease",
    "Publication",
    "PublicationState",
    "QuotaReservation",
    "Role",
    "SocialAccount",
    "StylePost",
    "User",
    "Workspace",
    "WorkspaceUsage",
]
