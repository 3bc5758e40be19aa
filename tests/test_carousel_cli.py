"""`socialgen carousel ...`: create (rich and --json), regenerate-slide, pdf,
templates, list, show, and the refusals."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from typer.testing import CliRunner

from socialgen.cli.main import app
from tests.carousel_support import counts, png
from tests.conftest import Store
from tests.scripted_support import ScriptedAI

runner = CliRunner()


def create_json(ai: ScriptedAI, *args: str) -> dict[str, object]:
    result = ai.invoke(["carousel", "create", *args, "--json"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["event"] == "plan_generated"
    assert events[-1]["event"] == "complete"
    data: dict[str, object] = events[-1]["data"]["data"]
    return data


def test_create_prints_the_plan_each_image_and_the_files(
    files_at: str, store: Store, scripted_ai: ScriptedAI, tmp_path: Path
) -> None:
    logo = tmp_path / "logo.png"
    logo.write_bytes(png("#ff0000", (32, 32)))
    me = tmp_path / "me.png"
    me.write_bytes(png("#00ff00", (32, 32)))
    result = scripted_ai.invoke(
        [
            "carousel", "create", "why small teams ship weekly", "--slides", "3",
            "--handle", "@ada", "--logo", str(logo), "--profile-image", str(me),
            "--template", "editorial",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Plan: 3 slides" in result.stderr
    assert "slide 2: Lesson 3" in result.stderr
    pdf_line = next(line for line in result.stdout.splitlines() if line.startswith("PDF:"))
    pdf = Path(pdf_line.split(None, 1)[1])
    assert pdf.is_file() and len(pdfium.PdfDocument(pdf)) == 3
    assert str(store.home) in str(pdf)
    thumbnail = next(line for line in result.stdout.splitlines() if line.startswith("thumbnail:"))
    assert Path(thumbnail.split(None, 1)[1]).read_bytes().startswith(b"\x89PNG")


def test_regenerate_list_and_show(files_at: str, store: Store, scripted_ai: ScriptedAI) -> None:
    carousel = create_json(scripted_ai, "shipping", "--slides", "2")
    carousel_id = str(carousel["carouselId"])
    result = scripted_ai.invoke(
        ["carousel", "regenerate-slide", carousel_id, "1", "a lighthouse", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["slideIndex"] == 1 and data["pdfUrl"] != carousel["pdfUrl"]

    listed = json.loads(scripted_ai.invoke(["carousel", "list", "--json"]).stdout)
    assert [c["id"] for c in listed] == [carousel_id]
    assert listed[0]["pdfUrl"] == data["pdfUrl"]
    shown = scripted_ai.invoke(["carousel", "show", carousel_id])
    assert shown.exit_code == 0
    assert "Lesson 2" in shown.stdout
    as_json = json.loads(scripted_ai.invoke(["carousel", "show", carousel_id, "--json"]).stdout)
    assert as_json["slides"][1]["image"] == data["slide"]["image"]


def test_pdf_from_html_files(store: Store, tmp_path: Path) -> None:
    pages = []
    for n in range(2):
        page = tmp_path / f"slide{n}.html"
        page.write_text(f"<h1>Slide {n}</h1>")
        pages.append(str(page))
    out = tmp_path / "out.pdf"
    out.write_bytes(b"an older file, open to others")
    out.chmod(0o644)
    result = runner.invoke(
        app, ["carousel", "pdf", *pages, "-o", str(out), "--width", "800", "--height", "1000"]
    )
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # private, as every export
    document = pdfium.PdfDocument(out)
    assert [document[i].get_size() for i in range(2)] == [(600.0, 750.0)] * 2


def test_templates(store: Store) -> None:
    result = runner.invoke(app, ["carousel", "templates", "--json"])
    names = [t["name"] for t in json.loads(result.stdout)]
    assert len(names) >= 3
    table = runner.invoke(app, ["carousel", "templates"])
    assert all(name in table.stdout for name in names)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create", "x", "--slides", "40"], "--slides must be between 2 and 12"),
        (["create", "x", "--template", "neon"], "Unknown template 'neon'"),
        (["create", "x", "--logo", "missing.png"], "missing.png"),
        (["create", "x", "--profile-image", "http://10.0.0.1/me.png"], "10.0.0.1"),
        (["create", "   "], "prompt is required"),
        (["regenerate-slide", "nope", "0", "p"], "Carousel not found"),
        (["regenerate-slide", "nope", "first", "p"], "INDEX must be an integer"),
        (["show", "nope"], "Carousel not found"),
        (["pdf", "missing.html", "-o", "out.pdf"], "missing.html"),
        (["pdf", "x.html", "-o", "/no/such/dir/out.pdf"], "no such directory"),
    ],
)
def test_refusals_exit_non_zero_with_a_clear_message(
    store: Store, scripted_ai: ScriptedAI, args: list[str], message: str
) -> None:
    before = counts(store)
    result = scripted_ai.invoke(["carousel", *args])
    assert result.exit_code != 0
    assert message in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert counts(store) == before
    assert scripted_ai.calls == []  # refused before the model was asked


def test_too_many_reference_images(store: Store, scripted_ai: ScriptedAI, tmp_path: Path) -> None:
    image = tmp_path / "r.png"
    image.write_bytes(png())
    args = [arg for _ in range(6) for arg in ("--reference-image", str(image))]
    result = scripted_ai.invoke(["carousel", "create", "x", *args])
    assert result.exit_code == 1
    assert "At most 5 reference images are allowed" in result.stderr


def test_a_text_file_named_png_is_not_an_image(
    store: Store, scripted_ai: ScriptedAI, tmp_path: Path
) -> None:
    fake = tmp_path / "logo.png"
    fake.write_text("hello")
    result = scripted_ai.invoke(["carousel", "create", "x", "--logo", str(fake)])
    assert result.exit_code == 1
    assert "is not a PNG, JPEG, WebP or GIF image" in result.stderr


@pytest.mark.parametrize("json_output", [False, True])
def test_open_hands_the_pdf_to_the_viewer(
    store: Store, scripted_ai: ScriptedAI, monkeypatch: pytest.MonkeyPatch, json_output: bool
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("typer.launch", lambda target, **_kw: opened.append(target) or 1)
    args = ["carousel", "create", "x", "--slides", "2", "--open"]
    result = scripted_ai.invoke([*args, "--json"] if json_output else args)
    assert result.exit_code == 0, result.output
    [target] = opened
    assert target.endswith(".pdf") and Path(target).is_file()
    assert f"Could not open a PDF viewer; the PDF is {target}" in result.stderr
