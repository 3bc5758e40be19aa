"""The model's profile decides every small-model choice (issue 29): `model.small` is
read in ai/ (which makes the profile) and drafting/planning* (which asks it) only,
never in a slice, so a slice follows what the profile has learnt."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "socialgen"


def allowed(path: Path) -> bool:
    relative = path.relative_to(SRC)
    return relative.parts[0] == "ai" or (
        relative.parts[0] == "drafting" and relative.name.startswith("planning")
    )


def small_reads(source: str, where: str) -> list[str]:
    """Each `<anything>.small` read (or getattr(x, "small")) in `source`."""
    return [f"{where}:{node.lineno}" for node in ast.walk(ast.parse(source)) if _reads(node)]


def _reads(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "small"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "small"
    )


def test_no_slice_reads_model_small() -> None:
    paths = [path for path in sorted(SRC.rglob("*.py")) if not allowed(path)]
    assert len(paths) > 100  # the walk saw the package
    found = [
        read
        for path in paths
        for read in small_reads(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))
    ]
    assert not found, (
        "model.small read outside ai/ and drafting/planning*: ask drafting/planning.py "
        "(the model's profile) instead:\n" + "\n".join(found)
    )


def test_the_check_finds_a_planted_read() -> None:
    planted = "def f(model):\n    if model.small:\n        return getattr(model, 'small')\n"
    assert small_reads(planted, "x.py") == ["x.py:2", "x.py:3"]
    # A keyword argument named small (post_system(style, small=...)) is no read.
    assert small_reads("post_system(style, small=short_prompts(model))", "y.py") == []


def test_only_ai_and_the_planning_modules_are_allowed() -> None:
    assert allowed(SRC / "ai" / "structured.py")
    assert allowed(SRC / "drafting" / "planning_profile.py")
    assert not allowed(SRC / "drafting" / "writing.py")
    assert not allowed(SRC / "generation" / "batch.py")
