"""AI generation: chat, a single post, and a batch of five variations.

The three streams are `chat.py` (a general answer, or a post when that is what the user
asks for), `single.py` (generate-post: one post, saved as a draft or as a new version of
the post being refined) and `batch.py` (five variations written at once, each saved as
it completes); `posting.py` writes one post as a stream for the first two. Whether a
chat message asks for a post is `intent.py`'s call: clear wording decides first, the
model the rest. Refinement and suggested questions are `questions.py`'s, the URLs in the
input are read as source material by `url_context.py`, chat's own messages and side
answers are `writing.py`'s, and the slice's prompts are in `prompts/`.

Everything is checked and resolved before a stream opens, the quota included
(`plan.py`), so HTTP can still answer a refusal with a status code. `head_start.py`
sends `socialgen post`'s provider request while the store opens.

The faces are the commands (`cli.py`: `socialgen chat`, `post` and `batch`), the SSE
endpoints (`api.py`, over `schemas.py`'s bodies), the terminal rendering (`render.py`)
and the MCP tools write_post, write_batch and chat (`mcp_tools.py`), declared in
`feature.py`; the streams they send are listed in `streams.py`.
"""
