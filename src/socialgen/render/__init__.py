"""HTML to PDF and PDF to thumbnail; nothing here knows what a carousel is.

`pdf.py` renders slide HTML to one vector PDF with WeasyPrint (data: URIs only), and
`thumbnail.py` makes a PDF's first page a PNG. Untrusted HTML renders in worker
processes with a time and memory limit (`isolated.py`), behind a bounded queue that is
fair to each caller (`pool.py`: one per app's Runtime, `Runtime.render_pool()`; 503 with
Retry-After when full) and cancels a render whose client left (`client_gone.py`).
`checks.py` says what a request is refused for before rendering, without importing
WeasyPrint; `measure.py` measures how far a slide's text runs past its box.
"""
