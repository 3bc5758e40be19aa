"""Tests that need something pip cannot install: Pango (WeasyPrint's text layout)
and system fonts. Where one is missing such a test is skipped, saying which Debian
package to install; `.ci/run` installs them and checks, so CI never skips them.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest

PANGO_PACKAGES = "libpango-1.0-0 libpangoft2-1.0-0"


@functools.cache
def font_installed(family: str) -> bool:
    """Whether fontconfig (what WeasyPrint finds fonts with) knows `family`."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    found = subprocess.run(
        [fc_list, f":family={family}", "family"], capture_output=True, text=True, check=False
    )
    return found.returncode == 0 and bool(found.stdout.strip())


def needs_font(family: str, package: str) -> pytest.MarkDecorator:
    """Skip the test where the font `family` is missing, naming its Debian package."""
    if shutil.which("fc-list") is None:
        reason = (
            f"fontconfig's fc-list is missing, so the {family!r} font cannot be found: "
            f"install the Debian packages fontconfig and {package}"
        )
    else:
        reason = (
            f"the {family!r} font is not installed: install the Debian package {package} "
            f"(apt-get install {package})"
        )
    return pytest.mark.skipif(not font_installed(family), reason=reason)


@functools.cache
def pango_missing() -> str | None:
    """Why WeasyPrint cannot load (Pango missing), or None when it can."""
    try:
        import weasyprint  # noqa: F401  (loads Pango through cffi)
    except OSError as error:  # cffi: "cannot load library 'libpango-1.0-0'"
        return str(error).splitlines()[0]
    return None


def needs_pango() -> pytest.MarkDecorator:
    """Skip one test where WeasyPrint cannot load Pango (for modules that render in
    a few tests only, e.g. through a carousel's PDF; `require_weasyprint` for the rest)."""
    reason = pango_missing()
    return pytest.mark.skipif(
        reason is not None,
        reason=f"WeasyPrint needs Pango ({reason}): install the Debian packages {PANGO_PACKAGES}",
    )


@functools.cache
def no_font_at_all() -> bool:
    """fontconfig knows no font (Pango then crashes the process, not just a test)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False  # cannot tell: let the tests run
    found = subprocess.run([fc_list, ":", "family"], capture_output=True, text=True, check=False)
    return found.returncode == 0 and not found.stdout.strip()


def require_weasyprint() -> None:
    """Skip the calling test module where WeasyPrint cannot work: Pango missing, or
    no font at all. Call it before the module imports weasyprint or anything that
    renders PDFs (socialgen.render.pdf)."""
    reason = pango_missing()
    if reason is not None:
        pytest.skip(
            f"WeasyPrint needs Pango ({reason}): install the Debian packages "
            f"{PANGO_PACKAGES} (apt-get install {PANGO_PACKAGES})",
            allow_module_level=True,
        )
    if no_font_at_all():
        pytest.skip(
            "fontconfig finds no font at all: install the Debian package fonts-dejavu-core "
            "(apt-get install fonts-dejavu-core)",
            allow_module_level=True,
        )
