"""One payload (or more) per event, as a service sends it, with the optional fields
given where they exist, so every field a renderer may read is exercised."""

from __future__ import annotations

from typing import Any

FILES = "/api/v1/files/ws1/carousels/c1"
_SLIDE = {
    "id": "s1",
    "slideIndex": 0,
    "title": "Ship weekly",
    "content": "Small teams ship weekly.",
    "image": f"{FILES}/slide-0.jpg",
    "user": {"name": "Ada", "profileImage": {"url": ""}},
    "theme": {"primaryColor": "#E4572E", "backgroundColor": "#FFFFFF", "font": "DejaVu Sans"},
}
_SUMMARY = {"total": 2, "generated": 1, "failed": 1}

EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("keepalive", {"ping": True}),
    ("error", {"message": "Post quota exceeded"}),
    ("url_processing_start", {"message": "Reading 2 link(s)", "count": 2}),
    ("scraping_url", {"url": "https://example.com/a", "message": "Fetching it"}),
    ("summarizing_content", {"url": "https://example.com/a", "title": "A page"}),
    (
        "extraction_completed",
        {
            "count": 1,
            "urls": ["https://example.com/a", "https://example.com/b"],
            "failed": [{"url": "https://example.com/b", "message": "404"}],
            "message": "Read 1 of 2 link(s)",
        },
    ),
    ("reasoning_started", {}),
    ("reasoning_delta", {"text": "Think first."}),
    ("reasoning_ended", {}),
    ("chat_delta", {"text": "A hook "}),
    ("content_delta", {"text": "names ", "accumulated": "A hook names "}),
    (
        "chat_response",
        {
            "conversationId": "c1",
            "response": "A hook names a tension.",
            "suggestedQuestions": ["Why?"],
            "conversationHistory": [
                {"role": "user", "content": "Hooks?", "createdAt": "2025-01-01T10:00:00Z"},
                {"role": "assistant", "content": "A hook…", "createdAt": "2025-01-01T10:00:01Z"},
            ],
        },
    ),
    ("post_ids", {"conversationId": "c1", "postId": "p1", "refinementQuestions": ["Who?"]}),
    (
        "batch_progress",
        {"current": 1, "total": 2, "variationName": "Story-driven", "status": "generating"},
    ),
    (
        "batch_progress",
        {
            "current": 1,
            "total": 2,
            "variationName": "Story-driven",
            "status": "completed",
            "postId": "p1",
        },
    ),
    (
        "batch_progress",
        {
            "current": 2,
            "total": 2,
            "variationName": "Educational",
            "status": "failed",
            "error": "The model timed out",
        },
    ),
    ("post_1_post_ids", {"postId": "p1", "conversationId": "c1", "variationName": "Story-driven"}),
    (
        "batch_complete",
        {
            "success": True,
            "originalPrompt": "ship weekly",
            "isRegeneration": False,
            "posts": [
                {
                    "index": 1,
                    "postId": "p1",
                    "conversationId": "c1",
                    "content": "Small teams ship weekly.",
                    "variationName": "Story-driven",
                    "status": "draft",
                }
            ],
            "errors": [{"index": 2, "variationName": "Educational", "message": "timed out"}],
            "summary": _SUMMARY,
        },
    ),
    (
        "batch_complete",
        {
            "success": True,
            "originalPrompt": "ship weekly",
            "isRegeneration": False,
            "posts": [
                {
                    "index": n,
                    "postId": f"p{n}",
                    "conversationId": f"c{n}",
                    "content": "Small teams ship weekly.",
                    "variationName": "Story-driven",
                    "status": "draft",
                }
                for n in (1, 2)
            ],
            "errors": [],
            "summary": {"total": 2, "generated": 2, "failed": 0},
            "ranking": {
                "order": ["p2", "p1"],
                "scores": {"p2": 0.61, "p1": 0.48},
                "heldOutAccuracy": 0.63,
                "pairs": 412,
            },
        },
    ),
    (
        "generation_started",
        {
            "calendarLength": 7,
            "sources": [{"type": "prompt", "title": "ship weekly"}],
            "message": "Planning a 7-day content calendar",
        },
    ),
    ("source_processing", {"type": "article", "status": "extracting", "message": "Reading"}),
    ("source_processing", {"type": "article", "status": "complete", "message": "Read it"}),
    (
        "calendar_progress",
        {
            "current": 1,
            "total": 7,
            "status": "generating",
            "message": "Writing day 1",
            "source": "template",
        },
    ),
    ("calendar_progress", {"current": 1, "total": 7, "status": "saving", "message": "Saving"}),
    (
        "calendar_progress",
        {"current": 1, "total": 7, "status": "completed", "message": "Saved", "postId": "p1"},
    ),
    ("calendar_progress", {"current": 2, "total": 7, "status": "failed", "message": "Failed"}),
    (
        "calendar_complete",
        {
            "success": True,
            "calendarLength": 7,
            "summary": {"total": 7, "generated": 1, "failed": 6},
            "posts": [
                {
                    "index": 1,
                    "postId": "p1",
                    "conversationId": "c1",
                    "content": "Day one.",
                    "theme": "Why weekly",
                    "suggestedDate": "2025-01-02T09:00:00Z",
                    "status": "draft",
                    "source": "template",
                }
            ],
        },
    ),
    (
        "plan_generated",
        {"prompts": ["An illustration"], "source": "template", "templateSlides": 1},
    ),
    (
        "image_generated",
        {
            "slideIndex": 0,
            "slide": {
                "title": "Ship weekly",
                "content": "Small teams ship weekly.",
                "image": f"{FILES}/slide-0.jpg",
                "source": "model",
            },
        },
    ),
    ("generating_pdf", {"message": "Rendering 1 slides to PDF"}),
    (
        "complete",
        {
            "success": True,
            "data": {
                "carouselId": "c1",
                "name": "Ship weekly",
                "status": "draft",
                "template": "bold",
                "postId": "p1",
                "pdfUrl": f"{FILES}/carousel.pdf",
                "thumbnailUrl": f"{FILES}/thumbnail.png",
                "slides": [_SLIDE, {**_SLIDE, "id": "s2", "slideIndex": 1, "source": "template"}],
            },
        },
    ),
]
