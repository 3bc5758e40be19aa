"""Every limit of SPEC.md in one place, enforced the same by the CLI and the API."""

from __future__ import annotations

from dataclasses import dataclass

from socialgen.errors import BadRequest


@dataclass(frozen=True)
class IntRange:
    """The values a whole-number input may take. The API declares it on its query
    parameters (`Query(ge=r.low, le=r.high)`), the CLI on its options
    (`typer.Option(min=r.low, max=r.high)`), services call `check`: one bound, three
    faces. Without an upper bound a number reaches SQLite's 64-bit OFFSET or a 32-bit
    PostgreSQL column and fails there, as a 500 instead of a 400."""

    name: str
    low: int
    high: int

    def check(self, value: int) -> int:
        """`value`, or a 400 worded as the API words its query-parameter refusals."""
        if value < self.low:
            floor = {0: "0 or more", 1: "a positive integer"}.get(self.low, f"at least {self.low}")
            raise BadRequest(f"{self.name} must be {floor}")
        if value > self.high:
            raise BadRequest(f"{self.name} must be at most {self.high}")
        return value

    def describe(self) -> str:
        """For help texts: `1 to 100`."""
        return f"{self.low} to {self.high}"


MAX_POST_CHARS = 3000
MAX_HOOK_CHARS = 200  # LinkedIn shows about this much before "see more"
POST_WINDOW_DAYS = 90

DEFAULT_PAGE = 1
DEFAULT_PAGE_LIMIT = 20
MAX_PAGE_LIMIT = 100
MAX_PAGE = 1_000_000  # SPEC.md gives none; 100 million conversations at the largest limit
PAGE = IntRange("page", 1, MAX_PAGE)
PAGE_LIMIT = IntRange("limit", 1, MAX_PAGE_LIMIT)

DEFAULT_TOKEN_DAYS = 30
MAX_TOKEN_DAYS = 3650
TOKEN_DAYS = IntRange("Token lifetime in days", 1, MAX_TOKEN_DAYS)

# A workspace's post quota: the column is a 32-bit INTEGER on PostgreSQL.
MAX_POST_QUOTA = 1_000_000_000
POST_QUOTA = IntRange("The post quota", 0, MAX_POST_QUOTA)

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
SLIDES = IntRange("slideCount", MIN_SLIDES, MAX_SLIDES)
SLIDE_INDEX = IntRange("slideIndex", 0, MAX_SLIDES - 1)  # regenerate-slide, 0 is the first
DEFAULT_SLIDE_WIDTH = 1080  # SPEC.md: generate-pdf defaults
DEFAULT_SLIDE_HEIGHT = 1350
MAX_SLIDE_SIDE = 4096  # CSS px; anything larger is refused as absurd
SLIDE_SIDE = IntRange("Slide width and height (CSS px)", 1, MAX_SLIDE_SIDE)
MAX_PDF_SLIDES = 30  # generate-pdf pages per call
MAX_SLIDE_HTML_BYTES = 2 * 1024 * 1024  # one slide's HTML (data: images included)
MAX_SLIDES_HTML_BYTES = 16 * 1024 * 1024  # the whole generate-pdf body

# Text fields are trimmed (str.strip) and a blank one counts as not given. These JSON
# Schema patterns (ECMA syntax) say so in the OpenAPI document with exactly Python's
# whitespace, which is not ECMA's \s (\x1c-\x1f and \x85 are space to Python, \ufeff
# is not).
SPACE_CLASS = "\\t-\\r\\x1c- \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
NOT_BLANK_PATTERN = f"[^{SPACE_CLASS}]"  # holds a character that trimming keeps
BLANK_PATTERN = f"^[{SPACE_CLASS}]*$"  # nothing but whitespace: the same as absent
