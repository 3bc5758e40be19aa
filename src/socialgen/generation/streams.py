"""The generation slice's streams: chat, generate-post and generate-batch-posts."""

from __future__ import annotations

from socialgen.events.chat import (
    ChatDelta,
    ChatResponse,
    ContentDelta,
    ExtractionCompleted,
    PostIds,
    ReasoningDelta,
    ReasoningEnded,
    ReasoningStarted,
    ScrapingUrl,
    SummarizingContent,
    UrlProcessingStart,
)
from socialgen.events.common import Keepalive, StreamError
from socialgen.events.stream import Stream
from socialgen.generation.batch_events import BatchComplete, BatchProgress, NumberedPostIds

_URLS = (UrlProcessingStart, ScrapingUrl, SummarizingContent, ExtractionCompleted)
_REASONING = (ReasoningStarted, ReasoningDelta, ReasoningEnded)

CHAT = Stream(
    "chat",
    "Chat stream",
    "POST /api/v1/ai-conversation/chat/{workspaceId}",
    (*_URLS, *_REASONING, ChatDelta, ContentDelta, ChatResponse, PostIds, Keepalive, StreamError),
)
POST = Stream(
    "post",
    "Generate-post stream",
    "POST /api/v1/ai-conversation/generate-post/{workspaceId}",
    (*_URLS, *_REASONING, ChatDelta, PostIds, Keepalive, StreamError),
)
BATCH = Stream(
    "batch",
    "Batch stream",
    "POST /api/v1/ai-conversation/generate-batch-posts/{workspaceId}",
    (BatchProgress, NumberedPostIds, BatchComplete, ChatDelta, Keepalive, StreamError),
)
STREAMS = (CHAT, POST, BATCH)
