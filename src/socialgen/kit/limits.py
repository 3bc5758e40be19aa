"""Every limit of SPEC.md in one place, enforced the same by the CLI and the API."""

from __future__ import annotations

from dataclasses import dataclass

from socialgen.kit.errors import BadRequest


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


MAX_INPUT_CHARS = 10_000  # a generation's userInput (topic, chat message)
MAX_POST_CHARS = 3000
MAX_HOOK_CHARS = 200  # LinkedIn shows about this much before "see more"
MAX_HASHTAGS = 5  # a generated post (or caption) never carries more: drafting/hashtags.py
POST_WINDOW_DAYS = 90

DEFAULT_PAGE = 1
DEFAULT_PAGE_LIMIT = 20
MAX_PAGE_LIMIT = 100
MAX_PAGE = 1_000_000  # SPEC.md gives none; 100 million conversations at the largest limit
PAGE = IntRange("page", 1, MAX_PAGE)
PAGE_LIMIT = IntRange("limit", 1, MAX_PAGE_LIMIT)
# recent-posts and posts-timeline: `limit` is optional (SPEC.md: the whole window);
# the terminal table shows the newest DEFAULT_TABLE_POSTS unless told otherwise.
MAX_POST_LIST_LIMIT = 1000
POST_LIST_LIMIT = IntRange("limit", 1, MAX_POST_LIST_LIMIT)
DEFAULT_TABLE_POSTS = 50
# insights rank: the drafts ranked in one call (a batch is 5; a calendar's month 30).
# insights --days: a century back; more overflows a date (a 500 instead of a 400).
INSIGHTS_DAYS = IntRange("days", 1, 36_500)
MAX_RANKED_POSTS = 50

DEFAULT_TOKEN_DAYS = 30
MAX_TOKEN_DAYS = 3650
TOKEN_DAYS = IntRange("Token lifetime in days", 1, MAX_TOKEN_DAYS)

# A workspace's post quota: the column is a 32-bit INTEGER on PostgreSQL.
MAX_POST_QUOTA = 1_000_000_000
POST_QUOTA = IntRange("The post quota", 0, MAX_POST_QUOTA)

MAX_STYLE_POSTS_PER_CALL = 5
# style create --from-top N / fromTop: its examples go in as one add-posts call.
STYLE_FROM_TOP = IntRange("fromTop", 1, MAX_STYLE_POSTS_PER_CALL)

MAX_PDF_BYTES = 10 * 1024 * 1024  # content calendar PDF
CALENDAR_LENGTHS = (7, 30)

# Carousels
MAX_REFERENCE_IMAGES = 5  # SPEC.md: generate-with-images
MAX_IMAGE_BYTES = 8 * 1024 * 1024  # any one uploaded or fetched image
MAX_IMAGE_PIXELS = 40_000_000  # decoded size; refuses decompression bombs
# WebP has no scaled decoding and Pillow's decoder keeps extra full-size buffers: a
# 39.9 MP WebP grew `serve` by 666 MB. Slides are 1080x1350 (1.5 MP), so 16 MP is
# still ten times what a slide can show.
MAX_WEBP_PIXELS = 16_000_000
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

# Request bodies. Every endpoint that takes a body declares its cap on its route
# (`dependencies=[request_body.body_cap(...)]`, one of the BodyLimits below);
# socialgen.http.body_gate enforces it while the body streams in (a Content-Length over it
# is refused at once), after the caller's key is checked and before a byte is parsed.
# docs/http-api.md ("Request body limits") lists them.
MAX_JSON_BODY_BYTES = 256 * 1024
FORM_OVERHEAD_BYTES = 256 * 1024  # text fields and part headers around the files
MAX_FORM_FIELD_BYTES = 256 * 1024  # one text field of a form, as much as a JSON body
MAX_FORM_PARTS = 64  # a carousel form has 13 at most; the calendar's articleUrls repeat
MAX_FORM_PART_HEADER_BYTES = 16 * 1024
# Room for every carousel file at its cap, plus one more so a sixth reference image is
# refused by count ("At most 5 ...") rather than by size.
MAX_CAROUSEL_FILES_BYTES = (MAX_REFERENCE_IMAGES + 3) * MAX_IMAGE_BYTES
PDF_BODY_OVERHEAD_BYTES = 64 * 1024  # generate-pdf: the JSON around the slides' HTML


@dataclass(frozen=True)
class BodyLimit:
    """What one endpoint's body may be: JSON up to `json_bytes` and, when `form_bytes`
    is set, multipart/form-data up to that. `needs_posts`: the fewest posts of quota
    the request can use; a workspace with fewer left is refused (403) before the body
    is read."""

    json_bytes: int = MAX_JSON_BODY_BYTES
    json_too_large: str = "The JSON body is larger than 256 KB"
    form_bytes: int | None = None
    form_too_large: str = ""
    needs_posts: int = 0

    def __call__(self) -> None:
        """A route dependency that does nothing: declared on the route, it is where
        body_gate finds the route's cap (`request_body.declared_limit`)."""


JSON_BODY = BodyLimit()
CALENDAR_BODY = BodyLimit(
    form_bytes=MAX_PDF_BYTES + FORM_OVERHEAD_BYTES,
    form_too_large="The form is larger than 10.25 MB: a PDF of at most 10 MB and text fields",
    needs_posts=min(CALENDAR_LENGTHS),
)
CAROUSEL_BODY = BodyLimit(
    form_bytes=MAX_CAROUSEL_FILES_BYTES + FORM_OVERHEAD_BYTES,
    form_too_large=(
        f"The upload is too large: at most {MAX_REFERENCE_IMAGES} reference images, "
        f"a logo and a profile image of {MAX_IMAGE_BYTES // (1024 * 1024)} MB each"
    ),
    needs_posts=1,
)
REGENERATE_SLIDE_BODY = BodyLimit(
    form_bytes=MAX_CAROUSEL_FILES_BYTES + FORM_OVERHEAD_BYTES,
    form_too_large=(
        f"The upload is too large: at most {MAX_REFERENCE_IMAGES} reference images "
        f"of {MAX_IMAGE_BYTES // (1024 * 1024)} MB each"
    ),
)
PDF_BODY = BodyLimit(
    json_bytes=MAX_SLIDES_HTML_BYTES + PDF_BODY_OVERHEAD_BYTES,
    json_too_large=f"The body is larger than {MAX_SLIDES_HTML_BYTES // (1024 * 1024)} MB",
)
# A route that takes a body and declares no cap (a new endpoint) gets a JSON body's;
# tests/test_hostile_bodies.py fails until it declares one.
DEFAULT_BODY_LIMIT = JSON_BODY


# Text fields are trimmed (str.strip) and a blank one counts as not given. These JSON
# Schema patterns (ECMA syntax) say so in the OpenAPI document with exactly Python's
# whitespace, which is not ECMA's \s (\x1c-\x1f and \x85 are space to Python, \ufeff
# is not).
SPACE_CLASS = "\\t-\\r\\x1c- \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
NOT_BLANK_PATTERN = f"[^{SPACE_CLASS}]"  # holds a character that trimming keeps
BLANK_PATTERN = f"^[{SPACE_CLASS}]*$"  # nothing but whitespace: the same as absent
# No control character but tab, line feed and carriage return (text_check refuses them,
# with a 400): stated on the path parameters OpenAPI describes with a free string.
NO_CONTROL_PATTERN = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"
