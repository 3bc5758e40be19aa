#!/usr/bin/env python3
"""Does a content style pull generated posts towards its examples?

For each of N prompts (default 4) the real generation pipeline writes one post without
a style and one post with each of two content styles of clearly different voices:

  founder  emoji-rich, enthusiastic, question hooks, one thought per line, exclamation
           marks, hashtags at the end;
  analyst  formal, long sentences in full paragraphs, impersonal, no emoji, no hashtags.

Each style is created with 5 example posts (socialgen.styles.service.create_style and
add_posts, which also derive the style profile) in a throwaway store: SOCIALGEN_HOME
points at a temporary directory and SOCIALGEN_DATABASE_URL / SOCIALGEN_WORKSPACE are
ignored, so no real store is touched. Generation runs in this process, exactly as the CLI
and the HTTP API do it: prepare_post(Caller(engine, workspace, None, settings),
GeneratePostRequest(userInput=prompt, contentStyleId=style or None)), then the whole
run_generate_post(plan, Runtime().text_model()) stream (the style guide with the style's profile
and its 3 examples closest to the topic goes into the system prompt; after the post, the
refinement questions are asked too). The saved post is read back from the store by the
id of the post_ids event, so what is measured is what a user would get.

The model is whatever the environment says: SOCIALGEN_MODEL unset means the embedded
SmolLM2-135M-Instruct (llama.cpp in-process); any other SOCIALGEN_MODEL (e.g. a real
provider, with its usual key variables) works the same. Answers are capped by
SOCIALGEN_MAX_TOKENS: --max-tokens, else the variable if set, else 160 for the embedded
model (to keep the run short) and the application default for any other model.

The measure (socialgen.styles.similarity.style_similarity, unchanged here), in [0, 1]:

  similarity(text, style) = 0.5 x mean over the style's examples of the cosine similarity
                                  of character 3-gram counts (lower-cased, spaces
                                  collapsed; punctuation, line breaks and emoji kept)
                          + 0.5 x feature similarity between the text's own style profile
                                  and the examples' profile (length, sentence length,
                                  paragraphs, line breaks, emoji, hashtags, questions,
                                  exclamations, lists, first line, hashtag position,
                                  person, tone, hook, emoji use; equal weights).

Per style, the bench reports the mean similarity to that style's examples of the posts
written WITH the style and of the posts written WITHOUT a style for the same prompts, the
difference (styled - unstyled) and the ratio, both components apart (n-gram, feature),
and in how many prompts the styled post was the closer one. Cross-check: a post styled
as A should be closer to A's examples than to B's (the column "vs other"). The verdict
only reads signs; there is no threshold to tune.

What to expect: with the embedded model the effect is expected to be SMALL. SmolLM2-135M
is a tiny model; it follows a long style guide loosely, often drifts from the topic, and
answers are cut at --max-tokens, which flattens the length features. Two runs of the
embedded model on one machine gave the same posts, so the uncertainty is not run-to-run
jitter but that of one sample for each of 4 prompts: a difference of a few hundredths is
within noise. A capable provider model should show a clearer gap. The numbers are
whatever they are: the measure is the documented one, not tuned for this bench.

The temporary home, the machine line and the table come from the bench harness
(bench/harness/). Run from the repository root:

    .venv/bin/python bench/style_similarity.py
    .venv/bin/python bench/style_similarity.py --prompts 2 --max-tokens 120 --show
    SOCIALGEN_MODEL=openai/gpt-4o-mini .venv/bin/python bench/style_similarity.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

# isort: off
# The harness first: it keeps litellm from fetching its cost map from the network.
from harness import Samples, Table, bench_home, machine_line

# socialgen reads its environment on each call, so importing it here is safe.
from socialgen.ai.settings import ai_settings
from socialgen.app.caller import Caller
from socialgen.files.backends import files_of
from socialgen.generation.plan import prepare_post
from socialgen.generation.schemas import GeneratePostRequest
from socialgen.generation.single import run_generate_post
from socialgen.posts.service import get_post
from socialgen.store.engine import transaction
from socialgen.styles.profile import derive_profile, describe_profile
from socialgen.styles.service import add_posts, create_style
from socialgen.styles.similarity import (
    feature_similarity,
    ngram_similarity,
    style_similarity,
)
from socialgen.workspaces.service import default_workspace
from socialgen.app.runtime import Runtime

# isort: on

EMBEDDED_MAX_TOKENS = 160
UNSTYLED = "(none)"

PROMPTS = (
    "why small teams ship weekly",
    "what remote work taught us about trust",
    "how we decide which customer feedback to act on",
    "the cost of saying yes to every meeting",
    "what our first failed product launch taught us",
    "why documentation is a product feature",
    "hiring for curiosity over experience",
    "pricing experiments that changed our business",
)

FOUNDER_DESCRIPTION = "Enthusiastic startup founder: short punchy lines, emoji, questions."
FOUNDER = (
    """Ever wondered why most startups never find product-market fit? 🤔

I did. For three years. 😅

Then I stopped building features and started calling customers every single day!

My inbox exploded. My roadmap shrank. My revenue doubled. 🚀

What would you cut first? 👇

#startups #founders #productmarketfit""",
    """Want to know the best hire I ever made? 🙌

It wasn't a senior engineer.

It was a support lead who cared more about my users than I did!

I learned more from her in six weeks than from any mentor. 💡

Who changed how you build? 👇

#startups #hiring #leadership""",
    """Is fundraising really the finish line? 🏁

I used to think so!

I closed my seed round and felt amazing for exactly one day. 🎉

Then the real work started: hiring, shipping, selling.

Money buys time. Nothing more. 🔥

What did your first round teach you? 👇

#startups #fundraising #founders""",
    """Why do I answer every support ticket myself? 😎

Because that's where the gold is!

Last week one angry email turned into our best feature. 🚀

Customers tell you everything. You just have to listen. 👂

When did you last read a ticket yourself? 👇

#startups #customers #founders""",
    """Ready for the most underrated growth hack? 🤯

Ship something tiny. Every. Single. Week!

My team did it for a year and I'm still amazed. 🙌

Small bets. Fast feedback. Zero drama. 💪

What are you shipping this Friday? 👇

#startups #shipping #buildinpublic""",
)

ANALYST_DESCRIPTION = "Formal analyst: long, measured sentences in full paragraphs."
ANALYST = (
    """European semiconductor capacity remains constrained by a shortage of qualified \
process engineers, and the announced fabrication projects will not materially change \
supply before 2027 at the earliest. The constraint is structural rather than cyclical, \
and it is unlikely to ease through wage increases alone in the coming years.

The analysis of public filings indicates that capital expenditure across the sector \
rose by approximately 18 percent last year, whereas output grew by less than 4 percent. \
This suggests that much of the new investment is still absorbed by construction rather \
than production.

Consequently, procurement teams should treat current lead times as a structural \
condition rather than a temporary disruption. Sourcing frameworks should be revised \
accordingly, with particular attention to second-tier suppliers.""",
    """The regulatory framework for digital assets in the European Union has moved from \
consultation to enforcement, and the implications for incumbent financial institutions \
are more significant than most public commentary suggests. The transition period is \
short, and few institutions have completed the necessary gap analysis so far.

Under the new regime, custody, disclosure and capital requirements apply to any \
institution that offers exposure to crypto-assets, regardless of whether that exposure \
is direct or intermediated through structured products.

Institutions that have treated the topic as a marginal compliance exercise will \
therefore need to reconsider their governance arrangements and their risk appetite \
statements. In several cases, the product strategy itself will require revision.""",
    """Labour productivity in the logistics sector has stagnated for three consecutive \
years, despite substantial investment in warehouse automation and route optimisation \
software. The pattern is consistent across the major European markets, and it is not \
explained by differences in labour costs or regulation.

The available data suggests that the bottleneck lies not in technology but in \
integration: systems are deployed in isolation, and data is not shared between carriers \
and shippers. The resulting efficiency gains therefore remain local rather than systemic.

A coordinated approach to data standards would deliver a larger improvement than any \
single investment in automation. It requires, however, a degree of cooperation that the \
sector has historically resisted.""",
    """Commercial real estate valuations continue to diverge from transaction prices, and \
the gap is unlikely to close until refinancing pressure forces sales in the secondary \
office segment. Appraisal practice, which relies on comparable transactions, is poorly \
suited to a market in which few transactions take place.

The review of recent appraisals indicates that reported values lag observed prices by \
approximately two quarters. Published indices therefore understate the correction that \
is already under way, particularly in regional markets.

Investors with significant exposure to the segment should accordingly stress-test their \
portfolios against transaction-based rather than appraisal-based valuations.""",
    """Corporate adoption of generative software tools has proceeded considerably faster \
than the development of the governance arrangements that such tools require. Surveys of \
large employers indicate that most usage takes place outside any formal policy, and that \
few organisations have assessed the associated legal and operational risks.

The absence of governance is not merely a compliance matter. Without a defined framework, \
organisations cannot measure whether the tools improve productivity, nor can they \
identify the processes in which the benefits would be most substantial.

A proportionate approach would therefore begin with an inventory of existing usage, \
followed by clear guidance on data handling and a limited number of measured pilots.""",
)

STYLES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("founder", FOUNDER_DESCRIPTION, FOUNDER),
    ("analyst", ANALYST_DESCRIPTION, ANALYST),
)


@dataclass
class Generated:
    prompt: str
    style: str  # a style name, or UNSTYLED
    content: str
    seconds: float  # the whole run_generate_post stream
    writing_seconds: float  # from the start to the last chat_delta


@dataclass
class Scores:
    total: list[float] = field(default_factory=list)
    ngram: list[float] = field(default_factory=list)
    feature: list[float] = field(default_factory=list)

    def mean(self, which: str) -> float:
        values: list[float] = getattr(self, which)
        return Samples(values).mean if values else float("nan")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="How much closer styled posts are to a style's examples than unstyled "
        "posts for the same prompts (real pipeline, model from the environment)."
    )
    parser.add_argument(
        "--prompts",
        type=int,
        default=4,
        help=f"how many prompts to use, 1-{len(PROMPTS)} (default 4)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="cap on answer tokens (SOCIALGEN_MAX_TOKENS); default: the variable if set, "
        f"else {EMBEDDED_MAX_TOKENS} for the embedded model, the app default otherwise",
    )
    parser.add_argument("--show", action="store_true", help="print every generated post")
    args = parser.parse_args(argv)
    if not 1 <= args.prompts <= len(PROMPTS):
        parser.error(f"--prompts must be between 1 and {len(PROMPTS)}")
    if args.max_tokens is not None and args.max_tokens < 1:
        parser.error("--max-tokens must be at least 1")
    return args


def configure_environment(home: Path, max_tokens: int | None) -> None:
    """A throwaway store, and the answer cap; the model choice is left as it is."""
    os.environ["SOCIALGEN_HOME"] = str(home)
    os.environ.pop("SOCIALGEN_DATABASE_URL", None)
    os.environ.pop("SOCIALGEN_WORKSPACE", None)
    if max_tokens is not None:
        os.environ["SOCIALGEN_MAX_TOKENS"] = str(max_tokens)
    elif not os.environ.get("SOCIALGEN_MAX_TOKENS") and not os.environ.get("SOCIALGEN_MODEL"):
        os.environ["SOCIALGEN_MAX_TOKENS"] = str(EMBEDDED_MAX_TOKENS)


async def generate(caller: Caller, prompt: str, style_id: str | None, style_name: str) -> Generated:
    started = time.monotonic()
    plan = prepare_post(caller, GeneratePostRequest(userInput=prompt, contentStyleId=style_id))
    post_id: str | None = None
    last_delta = started
    async for item in run_generate_post(plan, Runtime().text_model()):
        if item.name == "chat_delta":
            last_delta = time.monotonic()
        elif item.name == "post_ids":
            post_id = item.data["postId"]
    seconds = time.monotonic() - started
    if post_id is None:
        raise RuntimeError(f"no post_ids event for {prompt!r} ({style_name})")
    with transaction(caller.engine) as session:
        content = get_post(session, caller.workspace_id, post_id).content
    return Generated(prompt, style_name, content, seconds, last_delta - started)


def score(texts: Sequence[str], examples: Sequence[str]) -> Scores:
    profile = derive_profile(examples)
    result = Scores()
    for text in texts:
        result.total.append(style_similarity(text, examples, profile))
        result.ngram.append(Samples([ngram_similarity(text, e) for e in examples]).mean)
        result.feature.append(feature_similarity(derive_profile([text]), profile))
    return result


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


async def run(args: argparse.Namespace) -> int:
    engine = Runtime().open_store()
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        workspace_id = workspace.id
        style_ids: dict[str, str] = {}
        for name, description, examples in STYLES:
            style = create_style(session, workspace_id, name, description)
            add_posts(session, workspace_id, style.id, list(examples))
            style_ids[name] = style.id
    runtime = Runtime()
    caller = Caller(engine, workspace_id, None, runtime.settings, files=files_of(runtime))
    examples_of = {name: examples for name, _, examples in STYLES}

    settings = ai_settings(Runtime().settings)
    print(machine_line())
    print(f"model: {Runtime().text_model().name}   max tokens: {settings.max_tokens}")
    for name, _, examples in STYLES:
        summary = describe_profile(derive_profile(examples))[0]
        print(f"style {name}: {len(examples)} examples; {summary}")
    prompts = PROMPTS[: args.prompts]
    conditions = [(UNSTYLED, None), *((name, style_ids[name]) for name, _, _ in STYLES)]
    print(
        f"generating {len(prompts)} prompts x {len(conditions)} (no style, "
        + ", ".join(name for name, _, _ in STYLES)
        + ") ...",
        flush=True,
    )

    outputs: dict[str, list[Generated]] = {name: [] for name, _ in conditions}
    order: list[Generated] = []
    for prompt in prompts:
        for name, style_id in conditions:
            generated = await generate(caller, prompt, style_id, name)
            outputs[name].append(generated)
            order.append(generated)
            if args.show:
                print(f"\n--- {name} | {prompt} ({generated.seconds:.1f} s)\n{generated.content}")
    if args.show:
        print()

    unstyled = [g.content for g in outputs[UNSTYLED]]
    table = Table(
        "style",
        "unstyled",
        "styled",
        "diff",
        "ratio",
        "wins",
        "n-gram u→s",
        "feature u→s",
        "vs other",
    )
    closer = cross_ok = 0
    diffs: list[float] = []
    for name, _, examples in STYLES:
        other = next(o for o, _, _ in STYLES if o != name)
        styled = [g.content for g in outputs[name]]
        base, own = score(unstyled, examples), score(styled, examples)
        versus = score(styled, examples_of[other])
        diff = own.mean("total") - base.mean("total")
        diffs.append(diff)
        wins = sum(s > u for s, u in zip(own.total, base.total, strict=True))
        cross = own.mean("total") - versus.mean("total")
        closer += diff > 0
        cross_ok += cross > 0
        table.add(
            name,
            f"{base.mean('total'):.3f}",
            f"{own.mean('total'):.3f}",
            f"{diff:+.3f}",
            ratio(own.mean("total"), base.mean("total")),
            f"{wins}/{len(prompts)}",
            f"{base.mean('ngram'):.3f}→{own.mean('ngram'):.3f}",
            f"{base.mean('feature'):.3f}→{own.mean('feature'):.3f}",
            f"{versus.mean('total'):.3f}",
        )
    table.print()
    print(
        "unstyled / styled: mean similarity to the style's examples of the posts written "
        "without / with the style;\nwins: prompts where the styled post is the closer one; "
        "vs other: the styled posts against the other style's examples (should be < styled)."
    )
    # The first generation also loads the model (embedded) or warms the client up.
    later = order[1:] or order
    per_condition = ", ".join(
        f"{name} {Samples([g.seconds for g in later if g.style == name]).mean:.1f} s "
        f"(writing {Samples([g.writing_seconds for g in later if g.style == name]).mean:.1f})"
        for name, _ in conditions
        if any(g.style == name for g in later)
    )
    total = sum(g.seconds for g in order)
    print(
        f"time per generation: {Samples([g.seconds for g in later]).mean:.1f} s mean; "
        f"{per_condition}; writing = until the last chat_delta, the rest is the refinement "
        f"questions; first one {order[0].seconds:.1f} s (includes model load or client start-up); "
        f"{len(order)} generations, {total:.0f} s in all"
    )
    count = len(STYLES)
    tiny = (
        " (a tiny model: a small effect is expected)"
        if ai_settings(Runtime().settings).model is None
        else ""
    )
    print(
        f"VERDICT: styled output is closer to its style's examples than unstyled output for "
        f"{closer}/{count} styles (mean difference {Samples(diffs).mean:+.3f}); the "
        f"cross-check (own examples > other style's) holds for {cross_ok}/{count}; "
        f"{len(prompts)} prompt(s), one sample each, {Runtime().text_model().name}{tiny}."
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with bench_home("socialgen-style-bench-") as home:
        configure_environment(home, args.max_tokens)
        return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
