"""Follow-ups under a published post: a first comment (posted once the post is live,
after an optional delay) and a take-off reply, a plug (posted once a publication
passes a number of likes). Each goes under every publication of the post whose
network can reply (`CAN_REPLY` in its module: a Discord webhook cannot), exactly once,
with its own state apart from the publication's.

- `service.py`: setting, retrying and removing them, and queueing a state row when
  one is due (`queue_on_live`, called by the outbox's recorder; `queue_takeoff`, by its
  metrics poll), over `repository.py`.
- `claim.py` (statements in `repository_claim.py`): claims with a lease, as the
  outbox's; `worker.py`: posting a claimed follow-up through its network (the
  adapter's `publish` with `OutgoingPost.reply_to`) and the passes the scheduler,
  `publish-due` and `posts publish` run.
- `views.py`: what `posts publications` and the faces show; `dryrun.py`: what a dry
  run shows of them, or why a network cannot take them.
- `schemas.py`: bodies and views. Faces: `cli.py` (`posts first-comment`, `posts
  plug`; `render_cli.py` draws them under the outbox's lines), `api.py`,
  `mcp_tools.py`; `feature.py` declares them.
"""
