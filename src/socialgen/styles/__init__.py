"""Content styles: writing styles learned from example posts.

`service.py` keeps a workspace's styles and their example posts, over `repository.py`'s
queries. A style's derived profile of measurable writing habits is `profile.py`'s, made
of each post's text features (`post_reading.py`) and the kind of its opening line
(`hooks.py`). `similarity.py` says how close a text is to a style's examples and which
examples suit a topic; `guide.py` turns a style into a prompt (its profile, plus the
closest examples as few-shot context). `from_top.py` teaches a style with the creator's
own best posts (`style create --from-top N`).

The faces are `api.py`, `cli.py` (`socialgen style`) and the MCP tools list_styles,
create_style and add_style_posts (`mcp_tools.py`), over `schemas.py`'s shapes, declared
in `feature.py`.
"""
