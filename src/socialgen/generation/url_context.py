"""URLs in the user's input: fetched through the SSRF guard, main text extracted,
summarised, and handed to the prompt as source material."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from socialgen.ai.model import ModelError, TextModel, complete
from socialgen.drafting.prompts import render
from socialgen.events import Event
from socialgen.events.chat import (
    ExtractionCompleted,
    ScrapingUrl,
    SummarizingContent,
    UrlFailure,
    UrlProcessingStart,
)
from socialgen.kit.errors import SocialgenError

if TYPE_CHECKING:
    from socialgen.sources.articles import Article

logger = logging.getLogger("socialgen.generation")

MAX_URLS = 3
SOURCE_CHARS_FOR_SUMMARY = 6000


class UrlContext:
    """The source material behind the URLs in a message. `process()` streams its
    events (chat and generate-post announce each link) and leaves the material in
    `text`, like a response that is both a stream and its result; `read()` returns
    the material with no events (the batch). Both read each link with `_summary`.
    `allow_private`: the caller's allow_private_urls setting (sources/guard.py)."""

    def __init__(self, model: TextModel, user_input: str, *, allow_private: bool) -> None:
        from socialgen.sources.urls import find_urls

        self.model = model
        self.allow_private = allow_private
        self.urls = find_urls(user_input, limit=MAX_URLS)
        self.text = ""

    async def read(self) -> str:
        """The source material, without announcing anything."""
        summaries = []
        for url in self.urls:
            try:
                summaries.append(await self._summary(url, await self._article(url)))
            except ModelError:
                raise
            except SocialgenError as error:
                logger.info("could not use %s: %s", url, error.message)
        self.text = _material(summaries)
        return self.text

    async def process(self) -> AsyncIterator[Event]:
        if not self.urls:
            return
        yield Event.of(
            UrlProcessingStart(
                message=f"Reading {len(self.urls)} link(s) from your message",
                count=len(self.urls),
            )
        )
        summaries: list[str] = []
        failures: list[UrlFailure] = []
        for url in self.urls:
            yield Event.of(ScrapingUrl(url=url, message=f"Fetching {url}"))
            try:
                article = await self._article(url)
                yield Event.of(SummarizingContent(url=url, title=article.title or url))
                summaries.append(await self._summary(url, article))
            except ModelError:
                raise
            except SocialgenError as error:
                logger.info("could not use %s: %s", url, error.message)
                failures.append(UrlFailure(url=url, message=error.message))
        self.text = _material(summaries)
        yield Event.of(
            ExtractionCompleted(
                count=len(summaries),
                urls=self.urls,
                failed=failures,
                message=f"Read {len(summaries)} of {len(self.urls)} link(s)",
            )
        )

    async def _article(self, url: str) -> Article:
        from socialgen.sources.articles import extract_article

        return await extract_article(url, allow_private=self.allow_private)

    async def _summary(self, url: str, article: Article) -> str:
        title = article.title or url
        prompt = render("summarize", title=title, text=article.text[:SOURCE_CHARS_FOR_SUMMARY])
        summary = await complete(
            self.model,
            [{"role": "user", "content": prompt}],
            max_tokens=300,
            temperature=0.2,
            purpose="summary",
        )
        return f"Source: {title} ({url})\n{summary.strip()}"


def _material(summaries: list[str]) -> str:
    return "Use these sources:\n\n" + "\n\n".join(summaries) if summaries else ""
