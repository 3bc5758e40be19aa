"""Everything a calendar needs checked before the stream opens: length, sources,
URLs (through the SSRF guard), the PDF, the style and the quota."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from socialgen.app.caller import Caller
from socialgen.content_calendar.rhythm import calendar_dates, tomorrow
from socialgen.content_calendar.schemas import MAX_ARTICLE_URLS, MAX_PROMPT_CHARS, CalendarRequest
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import CALENDAR_LENGTHS
from socialgen.store.engine import transaction
from socialgen.styles.guide import style_guide
from socialgen.workspaces.usage import reserve_posts


@dataclass(frozen=True)
class CalendarPlan:
    caller: Caller
    length: int
    prompt: str | None
    youtube_url: str | None
    article_urls: list[str]
    pdf: Any  # socialgen.sources.pdf.PdfSource, text already read
    style: str | None
    start: date
    reservation_id: str  # the quota ledger row (workspaces/usage.py)
    sources: list[dict[str, str]] = field(default_factory=list)  # {type, title}
    dates: list[datetime] = field(default_factory=list)  # each day's suggested moment (UTC)

    @property
    def reserved(self) -> int:
        return self.length

    @property
    def topic(self) -> str:
        return self.prompt or "the ideas in the sources"


def prepare_calendar(caller: Caller, request: CalendarRequest) -> CalendarPlan:
    length = calendar_length(request.calendar_length)
    if not (request.prompt or request.youtube_url or request.article_urls) and request.pdf is None:
        raise BadRequest("Give at least one source: prompt, youtubeUrl, articleUrls or pdf")
    if request.prompt and len(request.prompt) > MAX_PROMPT_CHARS:
        raise BadRequest(f"prompt is longer than {MAX_PROMPT_CHARS} characters")
    if len(request.article_urls) > MAX_ARTICLE_URLS:
        raise BadRequest(f"At most {MAX_ARTICLE_URLS} article URLs per calendar")
    from socialgen.sources.guard import check_url

    allow_private = caller.settings.allow_private_urls
    youtube_url = (
        check_url(request.youtube_url, allow_private=allow_private) if request.youtube_url else None
    )
    articles = [check_url(url, allow_private=allow_private) for url in request.article_urls]
    pdf = None
    if request.pdf is not None:
        from socialgen.kit.limits import MAX_PDF_BYTES
        from socialgen.sources.pdf import pdf_text

        if len(request.pdf) > MAX_PDF_BYTES:
            raise BadRequest("The PDF is larger than 10 MB")
        pdf = pdf_text(request.pdf)
    sources = _source_list(request.prompt, youtube_url, articles, pdf)
    with transaction(caller.engine) as session:
        style = style_guide(
            session, caller.workspace_id, request.content_style_id, request.prompt or ""
        )
        reservation_id = reserve_posts(session, caller.workspace_id, length)
        start = request.start or tomorrow()
        if request.queue:  # the queue's next free slots instead of the calendar's times
            from socialgen.publishing.queue.service import calendar_slots

            dates = calendar_slots(session, caller.workspace_id, length, request.start)
        else:
            dates = calendar_dates(
                session, caller.workspace_id, start, length, caller.settings.timezone
            )
    return CalendarPlan(
        caller=caller,
        length=length,
        prompt=request.prompt,
        youtube_url=youtube_url,
        article_urls=articles,
        pdf=pdf,
        style=style,
        start=start,
        sources=sources,
        reservation_id=reservation_id,
        dates=dates,
    )


def calendar_length(value: Any) -> int:
    try:
        length = int(value) if not isinstance(value, bool) else 0
    except (TypeError, ValueError, OverflowError):  # OverflowError: JSON's 1e400 is infinity
        length = 0
    if isinstance(value, float) and not value.is_integer():
        length = 0
    if length not in CALENDAR_LENGTHS:
        raise BadRequest("calendarLength must be 7 or 30")
    return length


def _source_list(
    prompt: str | None, youtube_url: str | None, articles: list[str], pdf: Any
) -> list[dict[str, str]]:
    sources = []
    if prompt:
        sources.append({"type": "prompt", "title": prompt[:80]})
    if youtube_url:
        sources.append({"type": "youtube", "title": youtube_url})
    sources.extend({"type": "article", "title": url} for url in articles)
    if pdf is not None:
        sources.append({"type": "pdf", "title": pdf.title or "PDF"})
    return sources
