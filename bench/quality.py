"""Output quality: what the model really produced, per provider.

For each topic: a batch of five posts (share on topic, share that obey LinkedIn's
rules), a 6-slide carousel outline (share of slides the model wrote), a 7-day
calendar plan (share of themes the model wrote, and whether two unrelated topics
got different themes); then chat intent accuracy on the labelled sets in
tests/data. Wall time of each flow.

Providers:
  embedded     the embedded SmolLM2-135M in-process (the default install)
  llama-server llama-cpp-python's own OpenAI-compatible server on the same GGUF,
               through litellm (refuses json_schema: the ladder steps down); with
               SOCIALGEN_SMALL_MODEL=1 as a user of a small model would set it
  llama-json   the same server, not marked small: JSON outlines via json_object
  json-object  a fake provider that refuses json_schema and answers valid JSON for
               json_object (the target there: 100% model-made)

On topic: the post carries at least a third of the topic's content words (a word
is carried by any word starting with its first five letters: "shipping" carries
"ship"); the same test (socialgen.drafting.topic) decides when a small model's batch
draft is written once more. Rules: plain text (no markdown bold, headings or links),
at most 3000 characters, a first line of at most 200.

The temporary home, the providers' servers and the table come from the bench harness
(bench/harness/).

    .venv/bin/python bench/quality.py                       # every provider
    .venv/bin/python bench/quality.py --providers embedded --topics 3
    .venv/bin/python bench/quality.py --providers json-object --topics 1 --intents 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from socialgen.runtime import Runtime

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import REPO as ROOT, Samples, Table, bench_env, bench_home, environ, machine_line
from harness.fake import FakeOpenAI, LlamaServer, json_object_answers

# isort: on

TOPICS = (
    "why small teams ship weekly",
    "running a bakery as a solo founder",
    "how to negotiate your first salary",
    "lessons from migrating our database to PostgreSQL",
    "onboarding junior engineers remotely",
    "what marathon training taught me about leadership",
)
INTENT_SETS = ("chat_intent.jsonl", "chat_intent_heldout.jsonl")
ENV_NAMES = ("SOCIALGEN_MODEL", "SOCIALGEN_API_BASE", "OPENAI_API_KEY", "SOCIALGEN_SMALL_MODEL")


@dataclass
class TopicResult:
    topic: str
    posts: list[str] = field(default_factory=list)
    batch_seconds: float = 0.0
    slides_model: int = 0
    slides_total: int = 0
    outline_seconds: float = 0.0
    themes: list[str] = field(default_factory=list)
    themes_model: int = 0
    themes_seconds: float = 0.0


def obeys_rules(post: str) -> bool:
    markdown = re.search(r"\*\*|__|^\s{0,3}#{1,6}\s|\[[^\]]+\]\(", post, re.MULTILINE)
    return bool(post) and len(post) <= 3000 and len(post.split("\n")[0]) <= 200 and not markdown


# --------------------------------------------------------------------------- flows


async def run_topic(caller: Any, topic: str) -> TopicResult:
    from socialgen.ai.registry import text_model
    from socialgen.carousels.outline import outline_carousel
    from socialgen.content_calendar.themes import plan_themes
    from socialgen.generation.batch import run_batch
    from socialgen.generation.plan import prepare_batch
    from socialgen.generation.schemas import BatchRequest

    model = text_model(Runtime().settings)
    result = TopicResult(topic)
    started = time.perf_counter()
    plan = prepare_batch(caller, BatchRequest(userInput=topic))
    async for item in run_batch(plan, model):
        if item.name == "batch_complete":
            result.posts = [post["content"] for post in item.data["posts"]]
    result.batch_seconds = time.perf_counter() - started

    started = time.perf_counter()
    outline = await outline_carousel(model, topic, 6)
    result.outline_seconds = time.perf_counter() - started
    result.slides_total = len(outline.slides)
    result.slides_model = sum(slide.source == "model" for slide in outline.slides)

    started = time.perf_counter()
    themes = await plan_themes(model, f"Topic: {topic}", topic, 7)
    result.themes_seconds = time.perf_counter() - started
    result.themes = [theme.theme for theme in themes]
    result.themes_model = sum(theme.source == "model" for theme in themes)
    return result


async def intent_accuracy(limit: int | None) -> tuple[int, int, float]:
    from socialgen.ai.registry import text_model
    from socialgen.generation.intent import classify_intent

    model = text_model(Runtime().settings)
    right = total = 0
    started = time.perf_counter()
    for name in INTENT_SETS:
        for line in (ROOT / "tests" / "data" / name).read_text().splitlines()[:limit]:
            row = json.loads(line)
            total += 1
            right += await classify_intent(model, row["message"]) == row["intent"]
    return right, total, time.perf_counter() - started


# --------------------------------------------------------------------------- providers


@contextmanager
def provider(name: str) -> Iterator[None]:
    """The environment that points socialgen at `name`, restored afterwards."""
    with environ(dict.fromkeys(ENV_NAMES)):
        if name == "embedded":
            yield
        elif name in ("llama-server", "llama-json"):
            with LlamaServer() as server, environ(server.env(small=name == "llama-server")):
                yield
        elif name == "json-object":
            with FakeOpenAI(responder=json_object_answers) as fake:
                fake.refused_formats = {"json_schema"}
                with environ(fake.env()):
                    yield
        else:
            raise SystemExit(f"unknown provider {name!r}")


def open_caller() -> Any:
    from socialgen.drafting.caller import Caller
    from socialgen.startup import open_store
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    engine = open_store(Runtime().store_settings)
    with read_session(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        return Caller(
            engine=engine, workspace_id=workspace.id, user_id=None, settings=Runtime().settings
        )


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "   n/a"


def report(
    name: str, results: list[TopicResult], intent: tuple[int, int, float], show: bool
) -> None:
    from socialgen.drafting.topic import on_topic

    posts = [(post, r.topic) for r in results for post in r.posts]
    expected_posts = 5 * len(results)
    topical = sum(on_topic(post, topic) for post, topic in posts)
    lawful = sum(obeys_rules(post) for post, _topic in posts)
    slides = sum(r.slides_model for r in results), sum(r.slides_total for r in results)
    themes = sum(r.themes_model for r in results), 7 * len(results)
    distinct = [
        len(set(a.themes) & set(b.themes)) for i, a in enumerate(results) for b in results[i + 1 :]
    ]
    print(f"\n== {name} ({len(results)} topics) ==")
    print(f"batch posts written     {len(posts)} of {expected_posts}")
    print(f"on topic                {percent(topical, len(posts))}  ({topical}/{len(posts)})")
    print(f"LinkedIn rules          {percent(lawful, len(posts))}  ({lawful}/{len(posts)})")
    print(f"carousel slides, model  {percent(*slides)}  ({slides[0]}/{slides[1]})")
    print(f"calendar themes, model  {percent(*themes)}  ({themes[0]}/{themes[1]})")
    shared = max(distinct) if distinct else 0
    print(f"themes shared by two topics (most, any pair): {shared} of 7")
    right, total, seconds = intent
    print(f"intent accuracy         {percent(right, total)}  ({right}/{total}, {seconds:.1f} s)")
    table = Table("topic", "batch", "outline", "themes", "slides", "themes", indent="  ")
    for r in results:
        table.add(
            r.topic[:44],
            f"{r.batch_seconds:.1f} s",
            f"{r.outline_seconds:.1f} s",
            f"{r.themes_seconds:.1f} s",
            f"{r.slides_model}/{r.slides_total}",
            f"{r.themes_model}/7",
        )
    table.add(
        "mean",
        f"{Samples([r.batch_seconds for r in results]).mean:.1f} s",
        f"{Samples([r.outline_seconds for r in results]).mean:.1f} s",
        f"{Samples([r.themes_seconds for r in results]).mean:.1f} s",
    )
    table.print()
    if show:
        for r in results:
            print(f"\n  [{r.topic}] themes: {r.themes}")
            for post in r.posts[:2]:
                print("   post:", post[:160].replace("\n", " / "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--providers", default="embedded,llama-server,llama-json,json-object")
    parser.add_argument("--topics", type=int, default=len(TOPICS))
    parser.add_argument(
        "--intents", type=int, default=None, help="messages of each intent set (all)"
    )
    parser.add_argument("--show", action="store_true", help="print themes and post openings")
    args = parser.parse_args()
    print(machine_line())
    with bench_home("socialgen-bench-quality-") as home:
        # In this process: the home's store; each provider's settings come and go.
        os.environ.clear()
        os.environ.update(bench_env(home))
        caller = open_caller()
        for name in args.providers.split(","):
            from socialgen.ai.structured import forget_rungs

            forget_rungs()
            with provider(name):
                results = [asyncio.run(run_topic(caller, topic)) for topic in TOPICS[: args.topics]]
                intent = asyncio.run(intent_accuracy(args.intents))
            report(name, results, intent, args.show)


if __name__ == "__main__":
    main()
