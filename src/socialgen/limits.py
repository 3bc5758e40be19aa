"""Every limit of SPEC.md in one place, enforced the same by the CLI and the API."""

from __future__ import annotations

MAX_POST_CHARS = 3000
MAX_HOOK_CHARS = 200  # LinkedIn shows about this much before "see more"
POST_WINDOW_DAYS = 90

DEFAULT_PAGE = 1
DEFAULT_PAGE_LIMIT = 20
MAX_PAGE_LIMIT = 100

DEFAULT_TOKEN_DAYS = 30
MAX_TOKEN_DAYS = 3650

MAX_STYLE_POSTS_PER_CALL = 5

MAX_PDF_BYTES = 10 * 1024 * 1024  # content calendar PDF
CALENDAR_LENGTHS = (7, 30)

# Carousels
MAX_REFERENCE_IMAGES = 5  # SPEC.md: generate-with-images
MAX_IMAGE_BYTES = 8 * 1024 * 1024  # any one uploaded or fetched image
MAX_IMAGE_PIXELS = 40_000_000  # decoded size; refuses decompression bombs
DEFAULT_SLIDES = 6
MIN_SLIDES = 2
MAX_SLIDES = 12  # carousel create
DEFAULT_SLIDE_WIDTH = 1080  # SPEC.md: generate-pdf defaults
DEFAULT_SLIDE_HEIGHT = 1350
MAX_SLIDE_SIDE = 4096  # CSS px; anything larger is refused as absurd
MAX_PDF_SLIDES = 30  # generate-pdf pages per call
MAX_SLIDE_HTML_BYTES = 2 * 1024 * 1024  # one slide's HTML (data: images included)
MAX_SLIDES_HTML_BYTES = 16 * 1024 * 1024  # the whole generate-pdf body
