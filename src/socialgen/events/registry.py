"""Which events each stream sends, the model of every event name, and the reading of
an event from the wire (a client's, a test's).

The streams' lists are the single source for the docs' event tables
(`socialgen.events.docs`) and for the contract tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from socialgen.events.batch import BATCH_SIZE, BatchComplete, BatchProgress, NumberedPostIds
from socialgen.events.carousel import CarouselComplete, GeneratingPdf, ImageGenerated, PlanGenerated
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
from socialgen.events.content_calendar import (
    CalendarComplete,
    CalendarProgress,
    GenerationStarted,
    SourceProcessing,
)
from socialgen.events.errors import EventContractError
from socialgen.events.payload import EventPayload

Model = type[EventPayload]


@dataclass(frozen=True)
class Stream:
    key: str
    title: str
    endpoint: str
    events: tuple[Model, ...]
    typed: bool = False  # each SSE data is {type, data} (the carousel stream)


_URLS = (UrlProcessingStart, ScrapingUrl, SummarizingContent, ExtractionCompleted)
_REASONING = (ReasoningStarted, ReasoningDelta, ReasoningEnded)

STREAMS: tuple[Stream, ...] = (
    Stream(
        "chat",
        "Chat stream",
        "POST /api/v1/ai-conversation/chat/{workspaceId}",
        (
            *_URLS,
            *_REASONING,
            ChatDelta,
            ContentDelta,
            ChatResponse,
            PostIds,
            Keepalive,
            StreamError,
        ),
    ),
    Stream(
        "post",
        "Generate-post stream",
        "POST /api/v1/ai-conversation/generate-post/{workspaceId}",
        (*_URLS, *_REASONING, ChatDelta, PostIds, Keepalive, StreamError),
    ),
    Stream(
        "batch",
        "Batch stream",
        "POST /api/v1/ai-conversation/generate-batch-posts/{workspaceId}",
        (BatchProgress, NumberedPostIds, BatchComplete, ChatDelta, Keepalive, StreamError),
    ),
    Stream(
        "calendar",
        "Content calendar stream",
        "POST /api/v1/content-calendar/generate/{workspaceId}",
        (
            GenerationStarted,
            SourceProcessing,
            CalendarProgress,
            CalendarComplete,
            Keepalive,
            StreamError,
        ),
    ),
    Stream(
        "carousel",
        "Carousel stream",
        "POST /api/v1/carousel/generate-with-images/{workspaceId}",
        (PlanGenerated, ImageGenerated, GeneratingPdf, CarouselComplete, Keepalive, StreamError),
        typed=True,
    ),
)


def _all_models() -> dict[str, Model]:
    models: dict[str, Model] = {}
    for stream in STREAMS:
        for model in stream.events:
            models.setdefault(model.event_name, model)
    return models


MODELS: dict[str, Model] = _all_models()  # event name (or pattern) -> its model
_PATTERNS: tuple[tuple[re.Pattern[str], Model], ...] = tuple(
    (re.compile(re.escape(name).replace(re.escape("{N}"), "([1-9][0-9]*)")), model)
    for name, model in MODELS.items()
    if "{N}" in name
)


def model_for(name: str) -> Model:
    """The model of an event name; a pattern's instance (post_3_post_ids) finds its own."""
    model = MODELS.get(name)
    if model is not None and "{N}" not in name:
        return model
    for pattern, candidate in _PATTERNS:
        found = pattern.fullmatch(name)
        if found and int(found.group(1)) <= BATCH_SIZE:  # N: a 1-based index in the batch
            return candidate
    raise EventContractError(f"event {name!r} is not one SPEC.md (or socialgen) declares")


def read(name: str, data: Any) -> EventPayload:
    """An event read from the wire as its model; a break of the contract raises
    EventContractError."""
    return model_for(name).from_wire(data)
