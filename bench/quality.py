"""Output quality: what the model really produced, per provider.

For each topic: a batch of five posts (share on topic, share that obey LinkedIn's
rules), the refinement questions of its first post (how many were shown, and how
many of those are whole questions by socialgen.generation.questions), a 6-slide
carousel outline (share of slides the model wrote), a 7-day calendar plan (share of
themes the model wrote, and whether two unrelated topics got different themes);
then chat intent accuracy on the labelled sets in tests/data. Wall time of each
flow.

Providers:
  embedded     the embedded SmolLM2-135M in-process (the default install)
  llama-server llama-cpp-python's own OpenAI-compatible server on the same GGUF,
               through litellm (refuses json_schema: the ladder steps down); with
               SOCIALGEN_SMALL_MODEL=1 as a user of a small model would set it
  llama-json   the same server, not marked small: JSON outlines via json_object
  json-object  a fake provider that refuses json_schema and answers valid JSON for
               json_object (the target there: 100% model-made)
  gguf         llama_cpp.server on another GGUF (--gguf PATH, not marked small), e.g.
               Qwen2.5-Coder-0.5B-Instruct from ../shared/models/qwen05.sh

Topics: `--topic-set tuned` (default) are the six the prompts were tuned on;
`--topic-set heldout` six others, never used while tuning prompts (issue 29's quality
check); `--topic-set fresh` six more, chosen after the echo check was built from the
held-out answers and never used to change the code.

On topic: the post carries at least a third of the topic's content words (a word
is carried by any word starting with its first five letters: "shipping" carries
"ship"); the same test (socialgen.drafting.topic) decides when a small model's batch
draft is written once more. Rules: plain text (no markdown bold, headings or links),
at most 3000 characters, a first line of at most 200, and a post at all: a refusal
("I'm sorry, but I can't assist with that.", socialgen.drafting.refusal) breaks them.

The temporary home, the providers' servers and the table come from the bench harness
(bench/harness/).

    .venv/bin/python bench/quality.py                       # every provider
    .venv/bin/python bench/quality.py --providers embedded --topics 3
    .venv/bin/python bench/quality.py --providers json-object --topics 1 --intents 4
    .venv/bin/python bench/quality.py --providers gguf --gguf "$(../shared/models/qwen05.sh)" \
        --topic-set heldout --intents 0 --log 2>quality.log
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from socialgen.app.runtime import Runtime

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
# Never used while tuning prompts: the check that the tuned ones generalise.
HELDOUT_TOPICS = (
    "what a failed product launch taught our support team",
    "choosing a boring database for a new startup",
    "how I plan a week as a freelance designer",
    "why we stopped doing estimates in story points",
    "hiring your first salesperson at a developer-tools company",
    "keeping a small open-source project alive for ten years",
)
# Chosen after the echo check was built from the held-out topics' answers, and never
# used to change the code: the check that the held-out ones did not leak into it.
FRESH_TOPICS = (
    "what a year of pair programming did to our code reviews",
    "pricing a handmade furniture business",
    "moving a nonprofit's volunteers off spreadsheets",
    "learning to say no as a new engineering manager",
    "running a podcast on a shoestring budget",
    "why our clinic switched to text-message reminders",
)
INTENT_SETS = ("chat_intent.jsonl", "chat_intent_heldout.jsonl")
ENV_NAMES = ("SOCIALGEN_MODEL", "SOCIALGEN_API_BASE", "OPENAI_API_KEY", "SOCIALGEN_SMALL_MODEL")


@dataclass
class TopicResult:
    topic: str
    posts: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # the batch's failed drafts' messages
    batch_seconds: float = 0.0
    slides: list[str] = field(default_factory=list)  # titles, template-made ones marked
    slides_model: int = 0
    slides_total: int = 0
    outline_seconds: float = 0.0
    themes: list[str] = field(default_factory=list)
    themes_model: int = 0
    themes_seconds: float = 0.0
    questions: list[str] = field(default_factory=list)
    questions_seconds: float = 0.0
    echoes_caught: int = 0  # titles the product dropped as echoes of the prompt


def obeys_rules(post: str) -> bool:
    """LinkedIn's rules, and a post at all: a refusal ("I'm sorry, but I can't ...")
    is plain text within every limit, and still no post."""
    from socialgen.drafting.refusal import is_refusal

    markdown = re.search(r"\*\*|__|^\s{0,3}#{1,6}\s|\[[^\]]+\]\(", post, re.MULTILINE)
    fits = bool(post) and len(post) <= 3000 and len(post.split("\n")[0]) <= 200
    return fits and not markdown and not is_refusal(post)


# --------------------------------------------------------------------------- flows


class EchoCount(logging.Handler):
    """How many titles the product dropped as echoes of their prompt (its INFO log),
    counted whether or not --log shows the log."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.caught = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.caught += "echoes the prompt" in record.getMessage()


async def run_topic(caller: Any, model: Any, topic: str) -> TopicResult:
    result = TopicResult(topic)
    echoes = EchoCount()
    logging.getLogger("socialgen").addHandler(echoes)
    try:
        return await _run_topic(caller, model, topic, result, echoes)
    finally:
        logging.getLogger("socialgen").removeHandler(echoes)


async def _run_topic(
    caller: Any, model: Any, topic: str, result: TopicResult, echoes: EchoCount
) -> TopicResult:
    from socialgen.carousels.outline import echoes_prompt as slide_echo
    from socialgen.carousels.outline import outline_carousel
    from socialgen.content_calendar.themes import echoes_prompt as theme_echo
    from socialgen.content_calendar.themes import plan_themes
    from socialgen.generation.batch import run_batch
    from socialgen.generation.plan import prepare_batch
    from socialgen.generation.schemas import BatchRequest
    from socialgen.generation.writing import refinement_questions

    started = time.perf_counter()
    plan = prepare_batch(caller, BatchRequest(userInput=topic))
    async for item in run_batch(plan, model):
        if item.name == "batch_complete":
            result.posts = [post["content"] for post in item.data["posts"]]
            result.failures = [error["message"] for error in item.data.get("errors") or []]
    result.batch_seconds = time.perf_counter() - started

    if result.posts:
        started = time.perf_counter()
        result.questions = await refinement_questions(
            model, result.posts[0], max_tokens=caller.settings.max_tokens
        )
        result.questions_seconds = time.perf_counter() - started

    started = time.perf_counter()
    outline = await outline_carousel(model, topic, 6)
    result.outline_seconds = time.perf_counter() - started
    result.slides_total = len(outline.slides)
    # A title that only echoes the prompt ("The Hook") is no slide of the model's,
    # whatever the product decided: judged here by the product's own check.
    echoed = [slide_echo(slide.title, topic) for slide in outline.slides]
    result.slides_model = sum(
        slide.source == "model" and not echo
        for slide, echo in zip(outline.slides, echoed, strict=True)
    )
    result.slides = [
        slide.title + marks(slide.source, echo)
        for slide, echo in zip(outline.slides, echoed, strict=True)
    ]

    started = time.perf_counter()
    material = f"Topic: {topic}"
    themes = await plan_themes(model, material, topic, 7)
    result.themes_seconds = time.perf_counter() - started
    result.themes = [
        theme.theme + marks(theme.source, theme_echo(theme.theme, topic, material))
        for theme in themes
    ]
    result.themes_model = sum(
        theme.source == "model" and not theme_echo(theme.theme, topic, material) for theme in themes
    )
    result.echoes_caught = echoes.caught
    return result


def marks(source: str, echo: bool) -> str:
    """How --show marks a title: made by the template, or an echo of the prompt."""
    return (" (template)" if source == "template" else "") + (" (echo)" if echo else "")


async def intent_accuracy(model: Any, limit: int | None) -> tuple[int, int, float]:
    from socialgen.generation.intent import classify_intent

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
def provider(name: str, gguf_path: Path | None = None) -> Iterator[None]:
    """The environment that points socialgen at `name`, restored afterwards."""
    with environ(dict.fromkeys(ENV_NAMES)):
        if name == "embedded":
            yield
        elif name in ("llama-server", "llama-json"):
            with LlamaServer() as server, environ(server.env(small=name == "llama-server")):
                yield
        elif name == "gguf":
            if gguf_path is None:
                raise SystemExit("the gguf provider needs --gguf PATH")
            with LlamaServer(gguf_path) as server, environ(server.env()):
                yield
        elif name == "json-object":
            with FakeOpenAI(responder=json_object_answers) as fake:
                fake.refused_formats = {"json_schema"}
                with environ(fake.env()):
                    yield
        else:
            raise SystemExit(f"unknown provider {name!r}")


def open_caller() -> Any:
    from socialgen.app.caller import Caller
    from socialgen.files.backends import files_of
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    runtime = Runtime()
    engine = runtime.open_store()
    with read_session(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        return Caller(
            engine=engine,
            workspace_id=workspace.id,
            user_id=None,
            settings=runtime.settings,
            files=files_of(runtime),
        )


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "   n/a"


def report(
    name: str, results: list[TopicResult], intent: tuple[int, int, float], show: bool
) -> None:
    from socialgen.drafting.topic import on_topic
    from socialgen.generation.questions import is_whole_question

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
    # Of the posts asked for: a draft that failed (a refusal the product caught, a
    # provider error) is no post within the rules either.
    print(f"LinkedIn rules          {percent(lawful, expected_posts)}  ({lawful}/{expected_posts})")
    print(f"carousel slides, model  {percent(*slides)}  ({slides[0]}/{slides[1]})")
    print(f"calendar themes, model  {percent(*themes)}  ({themes[0]}/{themes[1]})")
    caught = sum(r.echoes_caught for r in results)
    print(f"echo titles dropped     {caught} (slides and themes that echoed their prompt)")
    asked = [(q, r.posts[0]) for r in results if r.posts for q in r.questions]
    whole = sum(is_whole_question(q, post) for q, post in asked)
    print(f"questions shown         {len(asked)} of {3 * len(results)}, whole {whole}")
    shared = max(distinct) if distinct else 0
    print(f"themes shared by two topics (most, any pair): {shared} of 7")
    right, total, seconds = intent
    for r in results:
        for message in r.failures:
            print(f"failed draft ({r.topic[:40]}): {message[:160]}")
    print(f"intent accuracy         {percent(right, total)}  ({right}/{total}, {seconds:.1f} s)")
    table = Table(
        "topic", "batch", "questions", "outline", "themes", "slides", "themes", indent="  "
    )
    for r in results:
        table.add(
            r.topic[:44],
            f"{r.batch_seconds:.1f} s",
            f"{r.questions_seconds:.1f} s",
            f"{r.outline_seconds:.1f} s",
            f"{r.themes_seconds:.1f} s",
            f"{r.slides_model}/{r.slides_total}",
            f"{r.themes_model}/7",
        )
    table.add(
        "mean",
        f"{Samples([r.batch_seconds for r in results]).mean:.1f} s",
        f"{Samples([r.questions_seconds for r in results]).mean:.1f} s",
        f"{Samples([r.outline_seconds for r in results]).mean:.1f} s",
        f"{Samples([r.themes_seconds for r in results]).mean:.1f} s",
    )
    table.print()
    if show:
        for r in results:
            print(f"\n  [{r.topic}] themes: {r.themes}")
            print(f"   slides: {r.slides}")
            print(f"   questions: {r.questions}")
            for post in r.posts[:2]:
                print("   post:", post[:160].replace("\n", " / "))


def progress_line(provider_name: str, result: TopicResult) -> None:
    """One line per topic as it ends, so a long run shows what it has so far."""
    from socialgen.drafting.topic import on_topic

    topical = sum(on_topic(post, result.topic) for post in result.posts)
    lawful = sum(obeys_rules(post) for post in result.posts)
    print(
        f"[{provider_name}] {result.topic[:50]}: posts {len(result.posts)}/5, "
        f"on topic {topical}, rules {lawful}, slides {result.slides_model}/"
        f"{result.slides_total}, themes {result.themes_model}/7, "
        f"echoes dropped {result.echoes_caught}, batch {result.batch_seconds:.0f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--providers", default="embedded,llama-server,llama-json,json-object")
    parser.add_argument("--topics", type=int, default=len(TOPICS))
    parser.add_argument("--topic-set", choices=("tuned", "heldout", "fresh"), default="tuned")
    parser.add_argument("--gguf", type=Path, default=None, help="the GGUF of --providers gguf")
    parser.add_argument(
        "--intents", type=int, default=None, help="messages of each intent set (all)"
    )
    parser.add_argument(
        "--show", action="store_true", help="print themes, slide titles and post openings"
    )
    parser.add_argument(
        "--log", action="store_true", help="socialgen's INFO log on stderr: why a plan fell back"
    )
    args = parser.parse_args()
    # INFO always: the echo count reads it (EchoCount); shown only with --log.
    logging.getLogger("socialgen").setLevel(logging.INFO)
    if args.log:
        logging.basicConfig(format="%(asctime)s %(name)s %(message)s")
    print(machine_line())
    with bench_home("socialgen-bench-quality-") as home:
        # In this process: the home's store; each provider's settings come and go.
        os.environ.clear()
        os.environ.update(bench_env(home))
        caller = open_caller()
        for name in args.providers.split(","):
            topics = {"heldout": HELDOUT_TOPICS, "fresh": FRESH_TOPICS}.get(args.topic_set, TOPICS)
            with provider(name, args.gguf):
                # One model per provider, built fresh: what the ladder learns about it
                # (its profile) is its own, and a local GGUF loads once.
                model = Runtime().text_model()
                results = []
                for topic in topics[: args.topics]:
                    results.append(asyncio.run(run_topic(caller, model, topic)))
                    progress_line(name, results[-1])
                intent = asyncio.run(intent_accuracy(model, args.intents))
            report(name, results, intent, args.show)


if __name__ == "__main__":
    main()
