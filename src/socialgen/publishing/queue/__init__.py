"""The posting queue: weekly slots ("Tue 08:30, Thu 08:30") per workspace or account,
and posts put in the next free one.

- `slots.py`: reading and writing slots, the moments they fall on (DST-correct).
- `placement.py`: the next free slot moments of a queue.
- `service.py`: setting slots, choosing the queue, putting a post in it; a queued post
  is a scheduled post with its publications in the outbox (outbox.service.schedule_post).
- `moves.py`: taking a post out or moving it, leaving the gap or closing it.
- `listing.py`: what goes out when; `suggest.py`: slots proposed from insights.
- `repository.py`: the statements; `schemas.py`: bodies and views.
- Faces: `cli.py` (`socialgen queue ...`), `slots_cli.py` (`queue slots ...`),
  `posts_cli.py` (`posts queue`), `api.py`, `mcp_tools.py`; `feature.py` declares them.
"""
