"""URLs in the user's input: fetched through the SSRF guard, main text extracted,
summarised, and handed to the prompt as source material."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from socialgen.ai.model import ModelError, TextModel, complete
from socialgen.drafting.prompts import render
from socialgen.errors import SocialgenError
from socialgen.events import Event, event

logger = logging.getLogger("socialgen.generation")

MAX_URLS = 3
SOURCE_CHARS_FOR_SUMMARY = 6000


class UrlContext:
    """The source material behind the URLs in a message. `process()` streams its
    events (chat and generate-post announce each link) and leaves the material in
    `text`, like a response that is both a stream and its result; `read()` returns
    the material with no events (the batch)."""

    def __init__(self, model: TextModel, user_input: str, *, announce: bool = True) -> None:
        from socialgen.sources.urls import find_urls

        self.model = model
        self.urls = find_urls(user_input, limit=MAX_URLS)
        self.announce = announce
        self.text = ""

    async def read(self) -> str:
        """The source material, without announcing anything."""
        self.announce = False
        async for _ in self.process():
            pass
        return self.text

    async def process(self) -> AsyncIterator[Event]:
        if not self.urls:
            return
        from socialgen.sources.articles import extract_article

        if self.announce:
            yield event(
                "url_processing_start",
                message=f"Reading {len(self.urls)} link(s) from your message",
                count=len(self.urls),
            )
        summaries: list[str] = []
        failures: list[dict[str, str]] = []
        for url in self.urls:
            if self.announce:
                yield event("scraping_url", url=url, message=f"Fetching {url}")
            try:
                article = await extract_article(url)
                if self.announce:
                    yield event("summarizing_content", url=url, title=article.title or url)
                summary = await complete(
                    self.model,
                    [
                        {
                            "role": "user",
                            "content": render(
                                "summarize",
                                title=article.title or url,
                                text=article.text[:SOURCE_CHARS_FOR_SUMMARY],
                            ),
                        }
                    ],
                    max_tokens=300,
                    temperature=0.2,
                )
                summaries.append(f"Source: {article.title or url} ({url})\n{summary.strip()}")
            except ModelError:
                raise
            except SocialgenError as error:
                logger.info("could not use %s: %s", url, error.message)
                failures.append({"url": url, "message": error.message})
        if summaries:
            self.text = "Use these sources:\n\n" + "\n\n".join(summaries)
        if self.announce:
            yield event(
                "extraction_completed",
                count=len(summaries),
                urls=self.urls,
                failed=failures,
                message=f"Read {len(summaries)} of {len(self.urls)} link(s)",
            )
