"""Model output made fit for LinkedIn."""

from __future__ import annotations

from socialgen.drafting.linkedin import clip, to_linkedin_text


def test_markdown_is_removed() -> None:
    raw = "Sure! Here is your post:\n\n## A title\n\nWe **ship** __weekly__. [Read](https://x.io)"
    assert to_linkedin_text(raw) == "A title\n\nWe ship weekly. Read (https://x.io)"


def test_an_unfinished_last_sentence_is_dropped() -> None:
    raw = "Small teams ship weekly. They learn faster than anyone. And the best part is that"
    assert to_linkedin_text(raw) == "Small teams ship weekly. They learn faster than anyone."


def test_hashtag_endings_and_complete_posts_are_kept() -> None:
    assert to_linkedin_text("Ship it.\n\n#startups #shipping") == "Ship it.\n\n#startups #shipping"
    assert to_linkedin_text("What stops you?") == "What stops you?"


def test_long_text_is_clipped_at_a_sentence_within_3000() -> None:
    text = "This sentence is forty characters long. " * 100
    clipped = clip(text.strip(), 3000)
    assert len(clipped) <= 3000
    assert clipped.endswith(".")
    assert len(to_linkedin_text(text)) <= 3000


def test_repeated_sentences_and_paragraphs_are_kept_once() -> None:
    loop = "I had always been a team player. But small teams win.\n\n"
    raw = loop * 4 + "What do you think?\n\n#teams"
    assert to_linkedin_text(raw) == (
        "I had always been a team player. But small teams win.\n\nWhat do you think?\n\n#teams"
    )


def test_lines_within_a_paragraph_survive_the_repeat_check() -> None:
    raw = "Three lessons:\n1. Ship small\n2. Talk to users\n3. Sleep\n\nWhy? Why not."
    assert to_linkedin_text(raw) == raw


def test_html_from_the_model_becomes_plain_text() -> None:
    raw = "<p>Small teams&#39; secret.</P><div class='x'>They ship &amp; learn.</DIV>"
    assert to_linkedin_text(raw) == "Small teams' secret.\nThey ship & learn."


def test_angle_brackets_that_are_not_tags_stay() -> None:
    assert to_linkedin_text("Speed > size. 3 < 5 teams win.") == "Speed > size. 3 < 5 teams win."


def test_a_long_first_line_breaks_after_its_first_sentence() -> None:
    from socialgen.drafting.linkedin import fit_hook

    first = "Small teams ship weekly because nobody waits for permission."
    rest = " And then " + "they keep going, week after week, " * 6 + "without a release train."
    text = fit_hook(first + rest + "\n\nSecond paragraph.")
    assert text.split("\n")[0] == first
    assert text.endswith("\n\nSecond paragraph.")
    assert " ".join(text.split()) == " ".join((first + rest + " Second paragraph.").split())


def test_a_first_sentence_over_200_characters_breaks_between_words() -> None:
    from socialgen.drafting.linkedin import fit_hook

    words = ("shipping " * 40).strip() + "."
    hook = fit_hook(words).split("\n")[0]
    assert 150 < len(hook) <= 200
    assert hook.endswith("shipping")  # never mid-word


def test_every_cleaned_post_keeps_its_hook_within_200_characters() -> None:
    long_opening = "Here is a thought " + "that runs on and on " * 15 + "until it ends."
    post = to_linkedin_text(f"**{long_opening}** More text follows here.\n\nAnd a question?")
    assert len(post.split("\n")[0]) <= 200
    assert "**" not in post


def test_a_short_hook_is_left_alone() -> None:
    from socialgen.drafting.linkedin import fit_hook

    text = "A short hook.\n\nA body that is long enough " * 3
    assert fit_hook(text) == text


def test_an_unpaired_bold_mark_is_removed() -> None:
    assert to_linkedin_text("**Key takeaway: ship small\n\nMore **bold** text.") == (
        "Key takeaway: ship small\n\nMore bold text."
    )
