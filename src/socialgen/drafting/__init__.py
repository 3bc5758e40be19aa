"""The drafting core, below every generating slice (chat/post/batch, calendars,
carousels): the model caller that streams text, structured plans, fan-out of
several drafts with one refund, saving drafts, prompts and post cleaning.

Who a generation runs for, and with what, is `app/caller.py`'s `Caller`. `writing.py`'s
`TextWriter` streams the model's text and reasoning events, and `finished_post` cleans
the result; a refusal (`refusal.py`) is no post. The model's framing (`---` rules, code
fences, "Here is your post:") is taken off first (`separators.py`); `linkedin.py` fits a
post to LinkedIn, its hook within 200 characters; `topic.py` says whether a draft is
about what was asked.

Prompts: `prompts.py`'s `Prompts(package)` reads a package's `prompts/*.txt` (each slice
has its own folder, the core's are in `drafting/prompts/`), and `post_prompt.py` makes a
post's messages from them.

Several drafts at once go through `runner.py`'s `DraftRunner`, over `fanout.py`, with
one `{total, generated, failed}` summary. `quota.py`'s `Reservation` is the quota a
stream reserved, what it did not use given back off the event loop; `persist.py` saves
the drafts.

The planning step (`planning.py`: `plan_items`) makes one plan of N items, for slides,
themes and questions: the model first, a top-up, then a template, each item marked. A
planned title that only echoes its plan's prompts ("The Hook", "Middle Slides: One
Point"; `echo.py`'s `PromptWords`, the prompts' own words and word pairs) is unusable
and goes through the top-up. Every choice that depends on the model's size (prompt size,
drafts at once, line lists or JSON) is made in `planning_profile.py`, re-exported by
`planning.py`, from the model's profile (`ai.model_profile.profile_of`); no slice reads
`model.small` (tests/test_small_model_choices.py).
"""
