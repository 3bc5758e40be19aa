"""Calendar sources: video transcripts (yt-dlp), PDF text (pypdf), condensing long text.

Video tests run yt-dlp's generic extractor against a threaded HTTP server on
127.0.0.1 serving HTML5 `<video><track>` pages (with the test allowance for
private URLs). PDFs are built with fpdf2 in the tests. The model is a tiny fake.
Nothing here resolves a real name or touches the internet.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import re
import socket
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fpdf import FPDF

from socialgen.ai.model import Chunk, Message
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_PDF_BYTES
from socialgen.sources import guard, video
from socialgen.sources.condense import condense, cut_at_sentence, split_sentences, split_text
from socialgen.sources.fetch import SourceError
from socialgen.sources.guard import UrlNotAllowed
from socialgen.sources.pdf import pdf_text, read_upload_capped
from socialgen.sources.video import extract_video, pick_track, subtitle_text
from socialgen.sources.video_errors import ytdlp_error

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@pytest.fixture(autouse=True)
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach real DNS; only IP literals are used."""

    def resolve(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(guard, "resolve", resolve)


# --- a local web server ------------------------------------------------------------------


@dataclass
class Site:
    base: str = ""
    pages: dict[str, tuple[int, str, bytes, dict[str, str]]] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return self.base + path

    def add(
        self,
        path: str,
        body: str | bytes,
        content_type: str = "text/html; charset=utf-8",
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.pages[path] = (status, content_type, data, headers or {})


class Handler(BaseHTTPRequestHandler):
    site: Site

    def do_GET(self) -> None:
        self.site.seen.append(self.path)
        page = self.site.pages.get(self.path)
        if page is None:
            self.send_error(404, "Not Found")
            return
        status, content_type, body, headers = page
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def site() -> Iterator[Site]:
    state = Site()
    handler = type("SiteHandler", (Handler,), {"site": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def video_page(tracks: str, *, title: str = "Shipping weekly, a talk") -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{title}</title>
<meta property="og:description" content="Why small releases beat big ones.">
</head><body>
<h1>{title}</h1>
<video controls width="640">
  <source src="/media/talk.mp4" type="video/mp4">
  {tracks}
</video>
</body></html>"""


# Automatic captions as YouTube writes them: each cue repeats the line before it,
# a 10 ms cue shows the finished line again, words carry inline timestamps.
ROLLING_VTT = "\n".join(
    [
        "WEBVTT",
        "Kind: captions",
        "Language: en",
        "",
        "NOTE written by a speech recogniser",
        "",
        "STYLE",
        "::cue { color: yellow }",
        "",
        "intro",
        "00:00:00.000 --> 00:00:02.000 align:start position:0%",
        " ",
        "for<00:00:00.400><c> three</c><00:00:00.800><c> years</c>"
        "<00:00:01.200><c> we</c><00:00:01.600><c> shipped</c>",
        "",
        "00:00:02.000 --> 00:00:02.010 align:start position:0%",
        "for three years we shipped",
        " ",
        "",
        "00:00:02.010 --> 00:00:04.000 align:start position:0%",
        "for three years we shipped",
        "twice<00:00:02.500><c> a</c><00:00:03.000><c> year</c> [Music]",
        "",
        "00:00:04.000 --> 00:00:04.010 align:start position:0%",
        "twice a year",
        " ",
        "",
        "00:00:04.010 --> 00:00:06.000 align:start position:0%",
        "twice a year",
        "<v Dana>now we ship every &amp; each week</v>",
        "",
        "00:00:06.000 --> 00:00:08.000",
        "now we ship every &amp; each week",
        "",
    ]
)

ROLLING_TEXT = "for three years we shipped twice a year now we ship every & each week"


def test_video_transcript_title_and_description(site: Site) -> None:
    tracks = (
        '<track kind="subtitles" src="/subs/talk.de.vtt" srclang="de" label="Deutsch">'
        '<track kind="captions" src="/subs/talk.en.vtt" srclang="en" label="English">'
    )
    site.add("/talk", video_page(tracks))
    site.add("/v/42", b"", headers={"Location": "/talk"}, status=302)  # a short link
    site.add("/subs/talk.en.vtt", ROLLING_VTT, "text/vtt")
    site.add("/subs/talk.de.vtt", "WEBVTT\n\n00:00.000 --> 00:01.000\nHallo\n", "text/vtt")

    source = run(extract_video(site.url("/v/42"), allow_private=True))

    assert source.url == site.url("/v/42")
    assert source.title == "Shipping weekly, a talk"
    assert source.description == "Why small releases beat big ones."
    assert source.transcript == ROLLING_TEXT
    assert (source.language, source.automatic) == ("en", False)
    # English chosen, fetched once; the German track and the media are never fetched.
    assert site.seen.count("/subs/talk.en.vtt") == 1
    assert "/subs/talk.de.vtt" not in site.seen
    assert "/media/talk.mp4" not in site.seen


def test_video_without_captions_is_a_clear_error(site: Site) -> None:
    site.add("/silent", video_page(""))
    with pytest.raises(BadRequest) as error:
        run(extract_video(site.url("/silent"), allow_private=True))
    assert error.value.message.startswith("This video has no subtitles or captions: ")
    assert site.url("/silent") in error.value.message


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/gone", "Could not read the video at {url}: the server answered 404 Not Found"),
        ("/plain", "No video found at {url}: the site is not supported or has no video"),
    ],
)
def test_video_page_errors_are_clear(site: Site, path: str, expected: str) -> None:
    site.add("/plain", "<html><head><title>Just text</title></head><body><p>Hi</p></body></html>")
    with pytest.raises(SourceError) as error:
        run(extract_video(site.url(path), allow_private=True))
    message = error.value.message
    assert message == expected.format(url=site.url(path))
    for noise in ("\x1b[", "ERROR", "Traceback", "yt-dlp", "caused by", "[generic]"):
        assert noise not in message


def test_connection_refused_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/watch"
    with pytest.raises(SourceError, match=r"^Could not read the video at .*: .*refused"):
        run(extract_video(url, allow_private=True))


def test_private_address_refused_before_ytdlp_runs(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_run(url: str, allow_private: bool) -> dict[str, Any]:
        raise AssertionError("yt-dlp ran for a refused URL")

    monkeypatch.setattr(video, "_video_info", must_not_run)
    site.add("/talk", video_page('<track src="/x.vtt" srclang="en">'))
    with pytest.raises(UrlNotAllowed, match=r"127\.0\.0\.1 is a loopback address"):
        run(extract_video(site.url("/talk")))
    for url in ("ftp://127.0.0.1/video.mp4", "file:///etc/passwd"):
        with pytest.raises(UrlNotAllowed, match="only http and https"):
            run(extract_video(url))
    assert site.seen == []


def test_redirect_inside_ytdlp_passes_the_guard(site: Site) -> None:
    # yt-dlp follows redirects itself; each hop still meets the guard.
    site.add("/watch", b"", headers={"Location": "http://169.254.169.254/latest/"}, status=302)
    with pytest.raises(UrlNotAllowed, match=r"169\.254\.169\.254 is a cloud metadata address"):
        run(extract_video(site.url("/watch"), allow_private=True))
    assert site.seen == ["/watch"]


def test_subtitle_track_is_fetched_through_the_guard(site: Site) -> None:
    track = '<track kind="subtitles" src="http://169.254.169.254/subs.vtt" srclang="en">'
    site.add("/talk", video_page(track))
    with pytest.raises(UrlNotAllowed, match="cloud metadata"):
        run(extract_video(site.url("/talk"), allow_private=True))


def test_compressed_page_is_decoded_within_the_cap(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # yt-dlp is asked for identity; a server that compresses anyway is still read.
    page = video_page('<track kind="captions" src="/t.vtt" srclang="en">')
    site.add("/talk", gzip.compress(page.encode()), headers={"Content-Encoding": "gzip"})
    site.add("/t.vtt", "WEBVTT\n\n00:00.000 --> 00:01.000\nSmall batches win.\n", "text/vtt")
    assert (
        run(extract_video(site.url("/talk"), allow_private=True)).transcript == "Small batches win."
    )

    monkeypatch.setattr(video, "MAX_RESPONSE_BYTES", 100_000)
    bomb = gzip.compress(page.encode() + b"<!--" + b" " * 2_000_000 + b"-->")
    site.add("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    with pytest.raises(SourceError, match=r"an answer is larger than 0\.1 MB"):
        run(extract_video(site.url("/bomb"), allow_private=True))


def test_oversized_page_is_refused(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(video, "MAX_RESPONSE_BYTES", 50_000)
    site.add("/huge", video_page("") + "<!--" + "x" * 200_000 + "-->")
    with pytest.raises(SourceError, match=r"an answer is larger than 0\.05 MB"):
        run(extract_video(site.url("/huge"), allow_private=True))


def test_empty_track_is_no_captions(site: Site) -> None:
    site.add("/talk", video_page('<track src="/empty.vtt" srclang="en" kind="captions">'))
    site.add("/empty.vtt", "WEBVTT\n\n00:00.000 --> 00:01.000\n[Music]\n", "text/vtt")
    with pytest.raises(BadRequest, match=r"^This video has no subtitles or captions: the en track"):
        run(extract_video(site.url("/talk"), allow_private=True))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "\x1b[0;31mERROR:\x1b[0m [youtube] dQw4w9WgXcQ: Sign in to confirm you're not a bot. "
            "Use --cookies-from-browser or --cookies for the authentication. See  "
            "https://github.com/yt-dlp/yt-dlp/wiki/FAQ  for how to manually pass cookies",
            "Could not read the video at {url}: Sign in to confirm you're not a bot",
        ),
        (
            "ERROR: [youtube] abc: Video unavailable. This video is private",
            "Could not read the video at {url}: Video unavailable. This video is private",
        ),
        (
            "ERROR: Unsupported URL: https://example.com/x",
            "No video found at {url}: the site is not supported or has no video",
        ),
        (
            "ERROR: [vimeo] 1: Unable to download JSON metadata: HTTP Error 403: Forbidden "
            "(caused by <HTTPError 403: Forbidden>); please report this issue on  "
            "https://github.com/yt-dlp/yt-dlp/issues , filling out the template",
            "Could not read the video at {url}: the server answered 403 Forbidden",
        ),
    ],
)
def test_ytdlp_messages_are_cleaned(raw: str, expected: str) -> None:
    url = "https://video.example/watch"
    assert ytdlp_error(url, Exception(raw)).message == expected.format(url=url)


# --- subtitle parsing and track choice, offline ------------------------------------------


def test_srt_to_text() -> None:
    srt = (
        "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hello</i> there,\r\n{\\an8}general.\r\n\r\n"
        "2\r\n00:00:03,000 --> 00:00:04,000\r\n>> Weekly releases ♪ win.\r\n"
    )
    assert subtitle_text(srt, "srt") == "Hello there, general. Weekly releases win."


def test_json3_to_text() -> None:
    events = {
        "events": [
            {"tStartMs": 0, "dDurationMs": 1000, "segs": [{"utf8": "ship"}, {"utf8": " small"}]},
            {"tStartMs": 900, "aAppend": 1, "segs": [{"utf8": "\n"}]},
            {"tStartMs": 1000, "segs": [{"utf8": "batches"}, {"utf8": " often"}]},
            {"tStartMs": 2000},
        ]
    }
    assert subtitle_text(json.dumps(events), "json3") == "ship small batches often"


def test_srv_xml_to_text() -> None:
    srv1 = (
        '<?xml version="1.0" encoding="utf-8" ?><transcript>'
        '<text start="0" dur="1">it&amp;#39;s weekly</text>'
        '<text start="1" dur="1">and it works</text></transcript>'
    )
    srv3 = (
        '<timedtext format="3"><body><p t="0" d="900"><s>small</s><s t="300"> steps</s></p>'
        '<p t="900" d="900">win<br/>big</p></body></timedtext>'
    )
    assert subtitle_text(srv1, "srv1") == "it's weekly and it works"
    assert subtitle_text(srv3, "srv3") == "small steps win big"
    assert subtitle_text("<not xml", "srv3") == ""


def test_unknown_format_is_sniffed() -> None:
    assert subtitle_text("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n", "") == "hi"
    assert subtitle_text('{"events": [{"segs": [{"utf8": "yo"}]}]}', "") == "yo"


def _formats(*exts: str) -> list[dict[str, str]]:
    return [{"ext": ext, "url": f"https://cdn.example/{ext}"} for ext in exts]


def test_track_choice_prefers_english_and_manual() -> None:
    info: dict[str, Any] = {
        "language": "fr",
        "subtitles": {"live_chat": _formats("json"), "fr": _formats("vtt"), "en": _formats("srt")},
        "automatic_captions": {"en": _formats("json3", "vtt"), "fr-orig": _formats("vtt")},
    }
    chosen = pick_track(info)
    assert chosen is not None
    assert (chosen.language, chosen.automatic, chosen.ext) == ("en", False, "srt")

    del info["subtitles"]["en"]
    chosen = pick_track(info)
    assert chosen is not None  # automatic English before manual French
    assert (chosen.language, chosen.automatic, chosen.ext) == ("en", True, "vtt")

    info["automatic_captions"] = {"de": _formats("vtt"), "fr-orig": _formats("srv3")}
    chosen = pick_track(info)
    assert chosen is not None  # then the video's own language, manual first
    assert (chosen.language, chosen.automatic) == ("fr", False)

    info["subtitles"] = {}
    chosen = pick_track(info)
    assert chosen is not None
    assert (chosen.language, chosen.automatic, chosen.ext) == ("fr-orig", True, "srv3")

    assert pick_track({"subtitles": {"live_chat": _formats("json")}}) is None
    assert pick_track({"subtitles": {"en": [{"ext": "vtt"}]}}) is None  # no URL, no data
    assert pick_track({}) is None


# --- PDF -------------------------------------------------------------------------------

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def make_pdf(
    pages: list[str],
    *,
    title: str | None = None,
    unicode_font: bool = False,
    owner_password: str | None = None,
    user_password: str | None = None,
) -> bytes:
    pdf = FPDF()
    if unicode_font:
        if not DEJAVU.exists():
            pytest.skip("DejaVu Sans is not installed")
        pdf.add_font("DejaVu", fname=str(DEJAVU))
        pdf.set_font("DejaVu", size=11)
    else:
        pdf.set_font("Helvetica", size=11)
    if title:
        pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    if owner_password is not None:
        pdf.set_encryption(owner_password=owner_password, user_password=user_password)
    return bytes(pdf.output())


def sentences(page: int, count: int) -> str:
    return " ".join(
        f"Page {page} sentence {n} says the weekly release went out on time." for n in range(count)
    )


def test_pdf_text_of_several_pages() -> None:
    data = make_pdf(
        [
            "Quarterly review\nShipping weekly cut incidents by two thirds.",
            "The median lead time fell from nine weeks to four days.",
            "Teams stopped dreading release week.",
        ],
        title="Release report 2024",
    )
    source = pdf_text(data)
    assert source.title == "Release report 2024"
    assert (source.pages_read, source.page_count, source.truncated) == (3, 3, False)
    assert source.text == (
        "Quarterly review\nShipping weekly cut incidents by two thirds.\n\n"
        "The median lead time fell from nine weeks to four days.\n\n"
        "Teams stopped dreading release week."
    )


def test_pdf_text_is_nfkc_and_joins_hyphenated_line_ends() -> None:
    source = pdf_text(make_pdf(["The ﬁrst ﬂow was an effi-\ncient one."], unicode_font=True))
    assert source.text == "The first flow was an efficient one."
    # The title falls back on the first line when the metadata names none.
    assert source.title == "The first flow was an efficient one."
    kept = pdf_text(make_pdf(["Covid-\n19 and Anglo-\nSaxon stay."]))
    assert kept.text == "Covid-19 and Anglo-Saxon stay."


def test_pdf_text_stops_at_a_sentence_once_it_has_enough() -> None:
    pages = [sentences(page, 12) for page in range(20)]
    full = pdf_text(make_pdf(pages), max_chars=10**9)
    assert not full.truncated
    source = pdf_text(make_pdf(pages), max_chars=1500)
    assert source.truncated
    assert len(source.text) <= 1500
    assert source.text.endswith("went out on time.")
    assert full.text.startswith(source.text)
    assert source.pages_read < source.page_count == 20
    limited = pdf_text(make_pdf(pages), max_pages=2)
    assert (limited.pages_read, limited.truncated) == (2, True)
    assert "Page 2 " not in limited.text


def test_encrypted_pdf_is_refused_unless_it_opens_without_password() -> None:
    locked = make_pdf(["Secret plans for next year."], owner_password="o", user_password="u")
    with pytest.raises(BadRequest, match=r"^The PDF is encrypted: remove its password first$"):
        pdf_text(locked)
    permissions_only = make_pdf(["Open to read, locked to edit."], owner_password="owner")
    assert pdf_text(permissions_only).text == "Open to read, locked to edit."


def test_image_only_pdf_has_no_text_layer() -> None:
    from PIL import Image

    pdf = FPDF()
    for shade in (40, 200):
        pdf.add_page()
        pdf.image(Image.new("RGB", (120, 160), (shade, shade, shade)), x=10, y=10, w=120)
    with pytest.raises(BadRequest) as error:
        pdf_text(bytes(pdf.output()))
    assert error.value.message == (
        "The PDF has no text layer (scanned images?): no text found on all 2 pages; "
        "use a PDF with selectable text"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The PDF is empty"),
        (b"GIF89a" + bytes(range(256)) * 4, "The file is not a PDF"),
        (b"%PDF-1.7\n" + b"\x00garbage\xff" * 500, "The PDF could not be read: "),
        (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<", "The PDF could not be read: "),
    ],
)
def test_not_a_pdf_or_corrupt(data: bytes, message: str) -> None:
    with pytest.raises(BadRequest) as error:
        pdf_text(data)
    assert error.value.message.startswith(message)
    assert "Traceback" not in error.value.message


async def _chunks(total: int, size: int, pulled: list[int]) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        piece = min(size, total - sent)
        pulled.append(piece)
        sent += piece
        yield b"x" * piece


def test_upload_refused_as_soon_as_it_passes_10_mb() -> None:
    chunk = 64 * 1024
    total = int(10.5 * 1024 * 1024)
    pulled: list[int] = []
    with pytest.raises(BadRequest) as error:
        run(read_upload_capped(_chunks(total, chunk, pulled)))
    assert error.value.message == "The PDF is larger than 10 MB"
    assert sum(pulled) == MAX_PDF_BYTES + chunk  # stopped at the first chunk past the cap
    assert sum(pulled) < total


def test_upload_within_the_cap_is_returned_whole() -> None:
    pulled: list[int] = []
    body = run(read_upload_capped(_chunks(MAX_PDF_BYTES, 1024 * 1024, pulled)))
    assert len(body) == MAX_PDF_BYTES
    small = run(read_upload_capped(_chunks(10, 4, []), limit=10))
    assert small == b"x" * 10
    with pytest.raises(BadRequest, match="larger than 10 bytes"):
        run(read_upload_capped(_chunks(11, 4, []), limit=10))
    with pytest.raises(BadRequest) as error:
        run(read_upload_capped(_chunks(11, 4, []), limit=10, too_large="Body too large"))
    assert (error.value.message, error.value.status_code) == ("Body too large", 413)


# --- condense -------------------------------------------------------------------------


class FakeModel:
    """Answers with a short summary: a tag and the first sentence of what it got."""

    name = "fake/summariser"

    def __init__(self, answer: Callable[[str], str] | None = None) -> None:
        self.answer = answer or self.first_sentence
        self.inputs: list[str] = []
        self.active = 0
        self.peak = 0

    @staticmethod
    def first_sentence(text: str) -> str:
        return "Summary: " + split_sentences(text)[0]

    async def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        assert purpose == "condense"
        assert messages[0]["role"] == "system"
        assert max_tokens is not None and max_tokens > 0
        text = messages[-1]["content"].split("---\n", 1)[1]
        self.inputs.append(text)
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await asyncio.sleep(0.01)
            answer = self.answer(text)
            for start in range(0, len(answer), 40):
                yield Chunk(text=answer[start : start + 40])
        finally:
            self.active -= 1


def long_text(paragraphs: int, per_paragraph: int = 8) -> str:
    return "\n\n".join(
        " ".join(
            f"In part {p} point {s} the team shipped feature {p * 100 + s} on time."
            for s in range(per_paragraph)
        )
        for p in range(paragraphs)
    )


def test_short_text_passes_through_untouched() -> None:
    model = FakeModel()
    text = "  A short note.\n\nWith two paragraphs.  "
    assert run(condense(model, text, budget_chars=100)) is text
    assert model.inputs == []


def test_long_text_is_mapped_then_reduced_within_budget() -> None:
    text = long_text(60)  # about 36,000 characters
    model = FakeModel()
    result = run(condense(model, text, budget_chars=800, chunk_chars=2000))
    assert len(result) <= 800
    assert result.startswith("Summary: ")
    first_round = [chunk for chunk in model.inputs if not chunk.startswith("Summary")]
    reduce_rounds = [chunk for chunk in model.inputs if chunk.startswith("Summary")]
    assert len(first_round) >= len(text) // 2000
    assert reduce_rounds  # the joined summaries were condensed again
    # Chunks hold whole sentences only, and every sentence of the source exactly once.
    original = split_sentences(text)
    mapped = [sentence for chunk in first_round for sentence in split_sentences(chunk)]
    assert sorted(mapped) == sorted(original)
    assert all(len(chunk) <= 2000 and chunk.endswith("on time.") for chunk in first_round)
    assert 1 < model.peak <= 3  # concurrent, but bounded


def test_model_that_does_not_shrink_ends_cut_at_a_sentence() -> None:
    model = FakeModel(answer=lambda text: text + " And it added more.")
    text = long_text(20)
    result = run(condense(model, text, budget_chars=3000, chunk_chars=2500))
    assert len(result) <= 3000
    assert result.endswith(".")
    assert len(model.inputs) < 50  # bounded rounds, stopped when nothing shrank


def test_empty_summaries_keep_the_opening_sentences() -> None:
    model = FakeModel(answer=lambda text: "")
    result = run(condense(model, long_text(10), budget_chars=2000, chunk_chars=1000))
    assert 0 < len(result) <= 2000
    assert result.startswith("In part 0 point 0 the team shipped")


def test_split_text_never_cuts_a_sentence_unless_it_is_longer_than_a_chunk() -> None:
    text = "Short one. " + "word " * 100 + "end of a very long sentence. Last one!"
    chunks = split_text(text, 120)
    assert all(len(chunk) <= 120 for chunk in chunks)
    assert chunks[0] == "Short one."
    assert chunks[-1].endswith("end of a very long sentence. Last one!")
    assert " ".join(chunks).split() == text.split()
    assert split_text("One.\n\nTwo.\n\n\nThree.", 100) == ["One.\n\nTwo.\n\nThree."]


def test_cut_at_sentence() -> None:
    text = "First sentence here. Second one “quoted.” Third is long enough to pass."
    assert cut_at_sentence(text, 1000) == text
    assert cut_at_sentence(text, 45) == "First sentence here. Second one “quoted.”"
    assert cut_at_sentence(text, 20) == "First sentence here."
    assert cut_at_sentence("no ending at all here", 12) == "no ending at"
    assert cut_at_sentence("「日本語です。」次の文。", 8) == "「日本語です。」"


def test_condense_refuses_nonsense_budgets() -> None:
    with pytest.raises(ValueError):
        run(condense(FakeModel(), "text", budget_chars=0))


def test_pdf_fixture_helper_writes_real_pdfs() -> None:
    # Guards the helpers above: fpdf2 output is a PDF pypdf can parse.
    from pypdf import PdfReader

    assert len(PdfReader(io.BytesIO(make_pdf(["a", "b"]))).pages) == 2
    assert re.match(rb"%PDF-1\.\d", make_pdf(["x"]))
