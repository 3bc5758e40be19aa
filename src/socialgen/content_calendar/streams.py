"""The content calendar's stream."""

from __future__ import annotations

from socialgen.content_calendar.events import (
    CalendarComplete,
    CalendarProgress,
    GenerationStarted,
    SourceProcessing,
)
from socialgen.events.common import Keepalive, StreamError
from socialgen.events.stream import Stream

CALENDAR = Stream(
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
)
STREAMS = (CALENDAR,)
