"""Previews per network (issue 41, item 5): how a post reads on each network before it
goes out, read-only and offline.

- `plan.py`: one network's plan for a post (its parts, media, limits), dispatching to
  `plan_threads.py` (Bluesky, Mastodon, X, Threads, Nostr) and `plan_channels.py`
  (LinkedIn, Telegram, Discord, Pixelfed), which call each network package's own rules.
- `fold.py`: LinkedIn's fold ("…see more"); `cards.py`: link cards; `first_comment.py`:
  the first comment, read from the follow-ups slice.
- `targets.py`: which networks (asked, the post's accounts, every account, every
  network); `service.py`: the `PostPreview` every face answers; `repository.py`: its
  one statement.
- Faces: `cli.py` (`posts preview`, printed by `terminal.py`, `--html` by `html.py` and
  `page_file.py`), `api.py`, `mcp_tools.py` (preview_post); `feature.py` declares them.
"""
