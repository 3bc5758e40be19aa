"""All tables; importing this package registers them on SQLModel.metadata."""

from socialgen.store.tables.auth import AccessToken, ApiKey
from socialgen.store.tables.carousels import Carousel, CarouselSlide
from socialgen.store.tables.evergreen import EvergreenPlan, EvergreenRun, PlanState, RunState
from socialgen.store.tables.followups import (
    FollowupKind,
    FollowupPublication,
    FollowupState,
    PostFollowup,
)
from socialgen.store.tables.posts import Conversation, Message, Post, PostStatus, PostVersion
from socialgen.store.tables.publishing import (
    MetricSnapshot,
    Network,
    Publication,
    PublicationState,
    SocialAccount,
)
from socialgen.store.tables.queue import PostingQueue, QueueEntry, QueueSlot
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
    "EvergreenPlan",
    "EvergreenRun",
    "FollowupKind",
    "FollowupPublication",
    "FollowupState",
    "Membership",
    "Message",
    "MetricSnapshot",
    "Network",
    "PlanState",
    "Post",
    "PostFollowup",
    "PostStatus",
    "PostVersion",
    "PostingQueue",
    "ProcessLease",
    "Publication",
    "PublicationState",
    "QueueEntry",
    "QueueSlot",
    "QuotaReservation",
    "Role",
    "RunState",
    "SocialAccount",
    "StylePost",
    "User",
    "Workspace",
    "WorkspaceUsage",
]
