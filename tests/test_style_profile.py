"""Style profiles derived from example posts, and the similarity measures."""

from __future__ import annotations

import json

import pytest

from socialgen.styles.profile import (
    HOOK_BOLD,
    HOOK_NUMBER,
    HOOK_ONE_LINER,
    HOOK_QUESTION,
    HOOK_STATEMENT,
    HOOK_STORY,
    PERSON_IMPERSONAL,
    PERSON_SINGULAR,
    StyleProfile,
    classify_hook,
    derive_profile,
    describe_profile,
    profile_from_dict,
    profile_to_dict,
)
from socialgen.styles.similarity import (
    closest_examples,
    feature_similarity,
    ngram_similarity,
    style_similarity,
)

# An emoji-heavy founder: question hooks, one line per thought, hashtags at the end.
FOUNDER = [
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

#Startups #fundraising #founders""",
]

# A formal long-form analyst: no emoji, no hashtags, long sentences, full paragraphs.
ANALYST = [
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
is direct or intermediated through structured products. Supervisors have signalled \
limited tolerance for delay, particularly where retail clients are concerned.

Institutions that have treated the topic as a marginal compliance exercise will \
therefore need to reconsider their governance arrangements and their risk appetite \
statements. In several cases, the product strategy itself will require revision.""",
    """Labour productivity in the logistics sector has stagnated for three consecutive \
years, despite substantial investment in warehouse automation and route optimisation \
software. The pattern is consistent across the major European markets, and it is not \
explained by differences in labour costs or regulation.

The available data suggests that the bottleneck lies not in technology but in \
integration: systems are deployed in isolation, and data is not shared between carriers \
and shippers. The resulting efficiency gains therefore remain local rather than \
systemic, and they rarely reach the customers who ultimately pay for the service.

A coordinated approach to data standards would deliver a larger improvement than any \
single investment in automation. It requires, however, a degree of cooperation that the \
sector has historically resisted.""",
]

# Unseen posts in each style, on other topics.
FOUNDER_TEXT = """Why do so many founders burn out in year two? 😩

I almost did!

I stopped saying yes to every meeting and my energy came back. ⚡

What do you say no to? 👇

#founders #startups #burnout"""

ANALYST_TEXT = """Commercial real estate valuations continue to diverge from transaction \
prices, and the gap is unlikely to close until refinancing pressure forces sales in the \
secondary office segment.

The review of recent appraisals indicates that reported values lag observed prices by \
approximately two quarters. Published indices therefore understate the correction that \
is already under way."""


@pytest.fixture(scope="module")
def founder() -> StyleProfile:
    return derive_profile(FOUNDER)


@pytest.fixture(scope="module")
def analyst() -> StyleProfile:
    return derive_profile(ANALYST)


def test_the_founder_profile_captures_emoji_hashtags_hooks_and_rhythm(
    founder: StyleProfile,
) -> None:
    assert founder.examples == 3
    assert founder.uses_emoji and founder.emoji_per_post >= 3
    assert founder.common_emoji[0] == "👇"
    assert founder.hashtag_position == "end"
    assert founder.hashtags_per_post == 3
    # counted case-insensitively (#Startups is #startups), shown as first spelled
    assert founder.common_hashtags[:2] == ("#startups", "#founders")
    assert founder.main_hook == HOOK_QUESTION
    assert founder.question_ratio > 0.2 and founder.exclamation_ratio > 0
    assert founder.avg_sentence_words < 10
    assert founder.one_sentence_paragraph_ratio >= 0.6
    assert founder.person == PERSON_SINGULAR
    assert founder.tone == "enthusiastic"


def test_the_analyst_profile_is_formal_long_form_without_emoji_or_hashtags(
    analyst: StyleProfile,
) -> None:
    assert analyst.examples == 3
    assert not analyst.uses_emoji and analyst.emoji_per_post == 0
    assert analyst.hashtag_position == "none" and analyst.common_hashtags == ()
    assert analyst.main_hook == HOOK_STATEMENT
    assert analyst.question_ratio == 0 and analyst.exclamation_ratio == 0
    assert analyst.avg_sentence_words > 20
    assert analyst.avg_paragraphs == 3
    assert analyst.one_sentence_paragraph_ratio == 0
    assert analyst.person == PERSON_IMPERSONAL
    assert analyst.tone == "formal"


def test_the_two_styles_differ_in_length_and_line_breaks(
    founder: StyleProfile, analyst: StyleProfile
) -> None:
    assert founder.avg_chars < analyst.avg_chars
    assert founder.avg_words < analyst.avg_words
    assert founder.line_break_ratio > 2 * analyst.line_break_ratio
    assert founder.avg_first_line_chars < analyst.avg_first_line_chars


def test_describe_profile_turns_the_features_into_instructions(
    founder: StyleProfile, analyst: StyleProfile
) -> None:
    lines = describe_profile(founder)
    text = "\n".join(lines)
    assert lines[0].startswith("Write about 300 characters in 5 short paragraphs")
    assert "Open with a question" in text
    assert "Use 3-4 emoji such as 👇" in text
    assert "End with 3 hashtags such as #startups #founders" in text
    assert "Ask the reader questions" in text
    assert "first person singular (I), enthusiastic tone." in text
    assert "on a line of their own" in text

    formal = "\n".join(describe_profile(analyst))
    assert "Do not use emoji." in formal
    assert "Do not use hashtags." in formal
    assert "Use long, complete sentences" in formal
    assert "Write full paragraphs" in formal
    assert "Open with a plain statement" in formal
    assert "Write impersonally, without I, we or you, formal tone." in formal


def test_a_profile_round_trips_through_json(founder: StyleProfile) -> None:
    stored = json.loads(json.dumps(profile_to_dict(founder)))
    assert stored["common_hashtags"][0] == "#startups"
    assert profile_from_dict(stored) == founder


def test_loading_tolerates_missing_unknown_and_ill_typed_keys() -> None:
    loaded = profile_from_dict(
        {"examples": 2, "avg_chars": 640, "tone": "casual", "future_feature": [1, 2]}
    )
    assert loaded == StyleProfile(examples=2, avg_chars=640.0, tone="casual")
    assert isinstance(loaded.avg_chars, float)
    broken = profile_from_dict(
        {"examples": "2", "uses_emoji": 1, "hook_patterns": [3], "avg_words": float("nan")}
    )
    assert broken == StyleProfile()


def test_no_examples_give_the_neutral_profile() -> None:
    assert derive_profile([]) == StyleProfile()
    assert derive_profile(["", "  \n "]).examples == 0
    assert describe_profile(StyleProfile()) == []


@pytest.mark.parametrize(
    ("first_line", "hook"),
    [
        ("Ever wondered why startups fail? Here is why.", HOOK_QUESTION),
        ("🚀 Ready to ship faster? 👇", HOOK_QUESTION),
        ("87% of founders quit in year one.", HOOK_NUMBER),
        ("Three lessons from my first board meeting.", HOOK_NUMBER),
        ("I got fired on a Tuesday morning.", HOOK_STORY),
        ("In 2019 we shipped a product nobody wanted and kept going anyway.", HOOK_BOLD),
        ("Hustle culture is dead.", HOOK_BOLD),
        ("This changes everything!", HOOK_BOLD),
        ("Culture eats strategy.", HOOK_ONE_LINER),
        (
            "The market for industrial batteries grew steadily across Europe in 2023.",
            HOOK_STATEMENT,
        ),
    ],
)
def test_hook_classification(first_line: str, hook: str) -> None:
    assert classify_hook(first_line) == hook


def test_inline_hashtags_lists_and_emoji_sequences() -> None:
    inline = derive_profile(
        [
            "We moved our whole #engineering team to #remote work.\n\nBest decision yet.",
            "Our #remote hiring playbook:\n\n1. Write things down\n2. Pay fairly\n3. Trust",
        ]
    )
    assert inline.hashtag_position == "inline"
    assert inline.common_hashtags == ("#remote", "#engineering")
    assert inline.list_usage == 0.5
    assert inline.person == "first person plural"

    details = derive_profile(["Ranked #1 again 👩‍💻🇩🇪 see https://x.io/#pricing"])
    assert details.hashtags_per_post == 0  # "#1" and a URL fragment are no hashtags
    assert details.emoji_per_post == 2  # a ZWJ sequence and a flag count once each


def test_ngram_similarity_bounds_and_edge_cases() -> None:
    assert ngram_similarity("Ship it.", "ship   it.") == 1.0
    assert ngram_similarity("", "") == 1.0
    assert ngram_similarity("abc", "") == 0.0
    assert ngram_similarity("aaaa", "zzzz") == 0.0
    for a in (*FOUNDER, ANALYST_TEXT):
        for b in (FOUNDER_TEXT, *ANALYST):
            assert 0.0 <= ngram_similarity(a, b) <= 1.0


def test_feature_similarity_bounds(founder: StyleProfile, analyst: StyleProfile) -> None:
    assert feature_similarity(founder, founder) == 1.0
    assert 0.0 <= feature_similarity(founder, analyst) < 0.5
    assert feature_similarity(StyleProfile(), StyleProfile()) == 1.0
    assert feature_similarity(StyleProfile(), founder) == 0.0


def test_a_text_is_closer_to_its_own_style_by_every_measure(
    founder: StyleProfile, analyst: StyleProfile
) -> None:
    def mean_ngram(text: str, examples: list[str]) -> float:
        return sum(ngram_similarity(text, e) for e in examples) / len(examples)

    for text, own, other, own_profile, other_profile in (
        (FOUNDER_TEXT, FOUNDER, ANALYST, founder, analyst),
        (ANALYST_TEXT, ANALYST, FOUNDER, analyst, founder),
    ):
        assert mean_ngram(text, own) > mean_ngram(text, other)
        text_profile = derive_profile([text])
        assert feature_similarity(text_profile, own_profile) > feature_similarity(
            text_profile, other_profile
        )
        own_score = style_similarity(text, own)
        assert own_score > style_similarity(text, other) + 0.2
        assert 0.0 <= own_score <= 1.0
        assert style_similarity(text, own, profile=own_profile) == own_score
    assert style_similarity(FOUNDER_TEXT, []) == 0.0


EXAMPLES = [
    ("p1", "Fundraising tip: investors back momentum, not decks."),
    ("p2", "Hiring your first engineer? Look for people who ship, not people who talk."),
    ("p3", "Remote work only works when everything is written down."),
    ("p4", "I hired three engineers last year. Two of them were the best hires I made."),
    ("p5", "Burnout is real. Take the week off."),
]


def test_closest_examples_pick_the_topical_ones_in_a_stable_order() -> None:
    picked = closest_examples("How to hire your first engineers", EXAMPLES, k=2)
    assert [example_id for example_id, _ in picked] == ["p2", "p4"]
    assert closest_examples("fundraising", EXAMPLES, k=1)[0][0] == "p1"
    assert closest_examples("anything", EXAMPLES, k=0) == []
    assert len(closest_examples("anything", EXAMPLES[:2], k=5)) == 2
    same = [("a", "Same text."), ("b", "Same text."), ("c", "Same text.")]
    assert [i for i, _ in closest_examples("text", same, k=3)] == ["a", "b", "c"]


def test_everything_is_deterministic() -> None:
    assert derive_profile(FOUNDER + ANALYST) == derive_profile(FOUNDER + ANALYST)
    assert describe_profile(derive_profile(ANALYST)) == describe_profile(derive_profile(ANALYST))
    assert style_similarity(FOUNDER_TEXT, FOUNDER) == style_similarity(FOUNDER_TEXT, FOUNDER)
    topic = "first engineers"
    assert closest_examples(topic, EXAMPLES) == closest_examples(topic, EXAMPLES)
