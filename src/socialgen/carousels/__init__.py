"""Carousels: a plan of slides, an image per slide, HTML slides, a vector PDF.

`plan.py` checks and resolves everything before a carousel is made: the prompt, the
template, the style, the user's images, the author and the quota. The outline
(`outline.py`: the name, the caption post, and each slide's title, text and image
prompt) is asked for as JSON from capable models, and as titles then one text per slide
from small ones; where the model gave nothing usable, `plain_outline.py` stands in, its
slides marked `source: "template"`. `service.py` is the stream: the outline, one image
per slide as each is made, the PDF, then the stored carousel and its draft post.

`regenerate.py` makes one slide's image again, then the PDF and thumbnail, one
render-and-save at a time per carousel (`CarouselLocks`, on the app's state or one per
command). `assets.py` keeps a carousel's files: its images in the file store, and the
PDF and thumbnail rendered from its slides. `repository.py` holds the rows: a carousel
with its slides, its saves, and the ids the sweep finds owned.

The slides are Jinja2 templates (`templates/`, listed with their themes by
`templates.py`), given what `slides.py` says a slide has and turned into HTML by
`slides_html.py`. The user's images come in through `uploads.py`; `thread_work.py` runs
blocking work in threads that cleanup can wait for; `sweep.py` removes the folders no
carousel owns.

The faces are `cli.py` (`socialgen carousel`, its terminal rendering in
`render_cli.py`), `api.py` and the MCP tool create_carousel with the PDF as a resource
(`mcp_tools.py`), over `schemas.py`'s shapes and `body.py`'s JSON or multipart bodies.
`feature.py` declares them, the stream (`streams.py`) and the sweep as `serve`'s start
work.
"""
