"""The carousel's stream (its SSE data is {type, data})."""

from __future__ import annotations

from socialgen.carousels.events import (
    CarouselComplete,
    GeneratingPdf,
    ImageGenerated,
    PlanGenerated,
)
from socialgen.events.common import Keepalive, StreamError
from socialgen.events.stream import Stream

CAROUSEL = Stream(
    "carousel",
    "Carousel stream",
    "POST /api/v1/carousel/generate-with-images/{workspaceId}",
    (PlanGenerated, ImageGenerated, GeneratingPdf, CarouselComplete, Keepalive, StreamError),
    typed=True,
)
STREAMS = (CAROUSEL,)
