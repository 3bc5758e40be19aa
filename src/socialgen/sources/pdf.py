"""Text from an uploaded PDF: capped while it streams in, read page by page with pypdf.

Reading stops once there is enough text for the model (`max_chars`), at a sentence
end: a 2,000-page document costs the pages it takes to fill the context, not 2,000.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import AsyncIterable
from dataclasses import dataclass
from io import BytesIO
from typing import TYPE_CHECKING

from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_PDF_BYTES
from socialgen.kit.uploads import read_capped, size_text
from socialgen.sources.condense import cut_at_sentence

if TYPE_CHECKING:
    from pypdf import PdfReader

PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # readers accept a little junk before the header, as Acrobat does
MIN_LETTERS = 16  # fewer letters than this (page numbers, a stamp) is no text layer
MAX_TITLE_CHARS = 200

_LINE_END_HYPHEN = re.compile(r"(\w)[-\u00ad][ \t]*\n[ \t]*(\w)")
_SOFT_HYPHEN = "\u00ad"
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_INNER_SPACE = re.compile(r"[ \t]{2,}")
_BLANK_RUNS = re.compile(r"\n{3,}")
_LETTER = re.compile(r"[^\W\d_]")
_TITLE_NOISE = re.compile(r"^(?:microsoft (?:word|powerpoint|excel) - |untitled\b)", re.I)

# pypdf logs every repair it makes ("EOF marker not found") as a warning; with no
# logging configured Python would print those on the user's terminal. They still
# reach any handler the application sets up.
logging.getLogger("pypdf").addHandler(logging.NullHandler())


@dataclass(frozen=True)
class PdfSource:
    title: str  # "" when neither the metadata nor the first line gives one
    text: str
    pages_read: int
    page_count: int
    truncated: bool  # True when text was left out (max_chars or max_pages reached)


async def read_upload_capped(
    chunks: AsyncIterable[bytes], limit: int = MAX_PDF_BYTES, *, too_large: str | None = None
) -> bytes:
    """A PDF upload, refused (413) as soon as it passes `limit` bytes: `read_capped`
    with the PDF cap, saying "The PDF is larger than <limit>" unless `too_large`
    gives another message."""
    message = too_large or f"The PDF is larger than {size_text(limit)}"
    return await read_capped(chunks, limit, too_large=message)


def pdf_text(data: bytes, *, max_chars: int = 60_000, max_pages: int = 400) -> PdfSource:
    """The text of the PDF in `data`, NFKC-normalised, with line-end hyphens joined.

    Blocking and CPU-bound: async callers run it with `asyncio.to_thread`.
    Stops after `max_chars` characters (cut at a sentence end) or `max_pages`
    pages and says so with `truncated`. Raises `BadRequest` for a file that is empty,
    not a PDF, is encrypted with a password, cannot be parsed or has no text layer.
    """
    from pypdf import PdfReader

    if not data:  # an empty file chosen in a form, or an empty file given to the CLI
        raise BadRequest("The PDF is empty")
    if PDF_MAGIC not in data[:MAGIC_WINDOW]:
        raise BadRequest("The file is not a PDF")
    try:
        reader = PdfReader(BytesIO(data))
    except Exception as exc:  # pypdf raises many kinds on malformed files
        raise BadRequest(f"The PDF could not be read: {_reason(exc)}") from None
    if reader.is_encrypted:
        _decrypt_without_password(reader)
    try:
        page_count = len(reader.pages)
    except Exception as exc:
        raise BadRequest(f"The PDF could not be read: {_reason(exc)}") from None
    if page_count == 0:
        raise BadRequest("The PDF could not be read: it has no pages")

    parts: list[str] = []
    length = 0
    pages_read = 0
    failures = 0
    for index in range(min(page_count, max_pages)):
        if length >= max_chars:
            break
        pages_read += 1
        try:
            raw = reader.pages[index].extract_text()
        except Exception:  # a damaged page (pypdf fails in many ways) skips that page only
            failures += 1
            continue
        if text := clean_page_text(raw):
            parts.append(text)
            length += len(text) + 2

    text = "\n\n".join(parts)
    if len(_LETTER.findall(text, 0, 10_000)) < MIN_LETTERS:
        if failures == pages_read:
            raise BadRequest("The PDF could not be read: no page could be decoded")
        scope = f"all {pages_read} pages" if pages_read == page_count else f"{pages_read} pages"
        raise BadRequest(
            f"The PDF has no text layer (scanned images?): no text found on {scope}; "
            "use a PDF with selectable text"
        )
    truncated = pages_read < page_count or len(text) > max_chars
    text = cut_at_sentence(text, max_chars)
    return PdfSource(
        title=_title(reader, text),
        text=text,
        pages_read=pages_read,
        page_count=page_count,
        truncated=truncated,
    )


def clean_page_text(raw: str) -> str:
    """NFKC (ligatures such as "ﬁ", full-width forms), hyphenated line ends joined,
    runs of spaces and blank lines collapsed."""
    text = unicodedata.normalize("NFKC", raw).replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_END_HYPHEN.sub(_join_hyphenated, text)
    text = text.replace(_SOFT_HYPHEN, "")
    text = _TRAILING_SPACE.sub("\n", text)
    text = _INNER_SPACE.sub(" ", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _join_hyphenated(match: re.Match[str]) -> str:
    before, after = match.group(1), match.group(2)
    # "effi-\ncient" is one word; "Covid-\n19" or "Anglo-\nSaxon" keep their hyphen.
    if after.islower() and not before.isdigit():
        return before + after
    return f"{before}-{after}"


def _decrypt_without_password(reader: PdfReader) -> None:
    """Open a PDF that is encrypted with an empty user password (permissions only);
    one that really needs a password is refused."""
    from pypdf import PasswordType

    try:
        opened = reader.decrypt("")
    except Exception:  # unsupported algorithm, missing crypto library, broken dictionary
        opened = PasswordType.NOT_DECRYPTED
    if opened == PasswordType.NOT_DECRYPTED:
        raise BadRequest("The PDF is encrypted: remove its password first")


def _title(reader: PdfReader, text: str) -> str:
    try:
        metadata = reader.metadata
        title = str(metadata.title or "") if metadata is not None else ""
    except Exception:  # a broken Info dictionary is no reason to refuse the text
        title = ""
    title = " ".join(unicodedata.normalize("NFKC", title).split())
    if title and not _TITLE_NOISE.match(title):
        return title[:MAX_TITLE_CHARS]
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first_line[:MAX_TITLE_CHARS]


def _reason(exc: Exception) -> str:
    message = " ".join(str(exc).split())
    return message or type(exc).__name__
