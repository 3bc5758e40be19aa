"""Settings are read in one place: config/ reads them, the Runtime (app/runtime.py) holds
them, everything else is handed them (docs/architecture.md, "Settings").

Read with `ast` from every file under src/socialgen:

- a settings getter is a call of one of GETTERS (the readers config/ offers:
  `get_settings`, `light_setting`, `data_dir` (the `home` setting: take the
  Runtime's, `Runtime.store_settings.home`); `current_settings`, removed, should it
  come back), or `ai_settings()` without the settings it should be handed;
- an environment read is any use of `os.environ` or `os.getenv` (`environ`, `getenv`
  imported from os count too), and any import of `config.environment` (or a call of
  `config.environment(...)`): socialgen's own variables are settings, handed in; what
  is left is other tools' conventions (keys.OUTSIDE, the provider keys), each listed
  below.

Outside config/ and app/runtime.py each one fails, unless ALLOWED lists its file with the
reason it stays. Each entry must still be needed: a fixed file leaves the list.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "socialgen"
READERS = ("config/", "app/runtime.py")  # where settings and the environment are read
# current_settings: gone (issue 29), still caught should it come back.
GETTERS = frozenset({"current_settings", "data_dir", "get_settings", "light_setting"})
CONFIG_MODULES = ("socialgen.config", "socialgen.config.__init__")  # where environment() is

# (file, kind) -> why it stays. Kinds: "getter" (current_settings and the like),
# "env-read" (config.environment: a third-party convention variable, read when used as
# its own tool reads it), "env-write" (os.environ.setdefault only: a write for a
# library, not a read).
ALLOWED: dict[tuple[str, str], str] = {
    ("ai/hub_pull.py", "env-read"): (
        "HF_ENDPOINT, the hub mirror as huggingface_hub's convention names it (read per pull)"
    ),
    ("ai/ollama_tags.py", "env-read"): (
        "OLLAMA_HOST, Ollama's own address variable, when api_base is unset"
    ),
    ("ai/openai_compatible.py", "env-read"): (
        "the provider's address and API key variables and OPENAI_ORGANIZATION, as litellm "
        "and the OpenAI clients read them"
    ),
    ("admin/provider_keys_cli.py", "env-read"): (
        "whether a provider's API key variable is exported (it wins over a stored key)"
    ),
    ("admin/models_cli.py", "env-read"): (
        "`models default` warns that SOCIALGEN_MODEL shadows the value it just wrote: "
        "the settings object holds the winning value, not whether the variable is set"
    ),
    ("publishing/loopback.py", "env-read"): (
        "DISPLAY/WAYLAND_DISPLAY: whether a desktop can open the sign-in browser"
    ),
    ("ai/engine_llama_cpp.py", "env-write"): (
        "OMP_WAIT_POLICY for OpenMP in the C library, read when it loads (a write)"
    ),
    ("ai/engine_xllamacpp.py", "env-write"): (
        "OMP_WAIT_POLICY for OpenMP in the C library, read when it loads (a write)"
    ),
    ("ai/remote.py", "env-write"): (
        "LITELLM_LOCAL_MODEL_COST_MAP, read by litellm when it is imported (a write)"
    ),
}


@dataclass(frozen=True)
class Finding:
    path: str  # relative to src/socialgen
    line: int
    kind: str  # "getter", "env-read", "env-write"
    what: str

    def __str__(self) -> str:
        return f"src/socialgen/{self.path}:{self.line}: {self.what} ({self.kind})"


def findings_in(source: str, path: str) -> list[Finding]:
    """Every settings getter and environment use in one file's source."""
    tree = ast.parse(source)
    found: list[Finding] = []
    os_names = {"environ", "getenv"}
    imported_from_os = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "os"
        for alias in node.names
        if alias.name in os_names
    }
    writes: set[int] = set()  # ids of `os.environ` nodes inside os.environ.setdefault(...)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setdefault"
            and _is_os_environ(node.func.value)
        ):
            writes.add(id(node.func.value))
            found.append(Finding(path, node.lineno, "env-write", "os.environ.setdefault"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called_name(node.func)
            if name in GETTERS:
                found.append(Finding(path, node.lineno, "getter", f"{name}()"))
            if name == "ai_settings" and not node.args and not node.keywords:
                found.append(Finding(path, node.lineno, "getter", "ai_settings()"))
            if name == "environment" and isinstance(node.func, ast.Attribute):
                found.append(Finding(path, node.lineno, "env-read", "config.environment()"))
        if isinstance(node, ast.ImportFrom) and node.module in CONFIG_MODULES:
            for alias in node.names:
                if alias.name == "environment":
                    found.append(Finding(path, node.lineno, "env-read", "config.environment"))
        if (
            isinstance(node, ast.Attribute)
            and _is_os(node.value)
            and node.attr in os_names
            and id(node) not in writes
        ):
            found.append(Finding(path, node.lineno, "env-read", f"os.{node.attr}"))
        if isinstance(node, ast.Name) and node.id in imported_from_os:
            found.append(Finding(path, node.lineno, "env-read", node.id))
    return found


def _is_os(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "os"


def _is_os_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and _is_os(node.value)


def _called_name(func: ast.expr) -> str | None:
    """`name(...)`, or `config.name(...)` / `loading.name(...)`; a method of another
    object (`runtime.light_setting(...)`: the Runtime's own) is not a getter."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id in ("config", "loading") else None
    return None


def all_findings() -> list[Finding]:
    found: list[Finding] = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative.startswith(READERS):
            continue
        found += findings_in(path.read_text(encoding="utf-8"), relative)
    return found


def breaches(found: list[Finding]) -> list[str]:
    return [str(one) for one in found if (one.path, one.kind) not in ALLOWED]


def test_settings_and_the_environment_are_read_only_in_config_and_the_runtime() -> None:
    wrong = breaches(all_findings())
    assert not wrong, (
        "a settings getter or an environment read outside config/ and app/runtime.py: hand "
        "the value in from the Runtime (or declare the variable in config/keys.py and "
        "read it with config.environment):\n" + "\n".join(wrong)
    )


def test_every_allowed_file_still_needs_its_entry() -> None:
    """An entry whose file no longer reads (or no longer exists) must go: the list
    only shrinks."""
    needed = {(one.path, one.kind) for one in all_findings()}
    stale = sorted(f"{path} ({kind})" for path, kind in ALLOWED if (path, kind) not in needed)
    assert not stale, "allowed but no longer needed: " + ", ".join(stale)


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("from socialgen.config import current_settings\nx = current_settings().model\n", "getter"),
        ("from socialgen import config\nx = config.get_settings()\n", "getter"),
        ("from socialgen.config import light_setting\nx = light_setting('workspace')\n", "getter"),
        ("from socialgen.ai.settings import ai_settings\nx = ai_settings()\n", "getter"),
        ("import os\nx = os.environ.get('HOME')\n", "env-read"),
        ("import os\nx = os.environ['HOME']\n", "env-read"),
        ("import os\nx = os.getenv('HOME')\n", "env-read"),
        ("from os import environ\nx = environ.get('HOME')\n", "env-read"),
        ("from os import getenv as ge\nx = ge('HOME')\n", "env-read"),
        ("import os\nos.environ.setdefault('A', 'B')\n", "env-write"),
        ("from socialgen.config import data_dir\nx = data_dir() / 'models'\n", "getter"),
        ("from socialgen import config\nx = config.data_dir()\n", "getter"),
        ("from socialgen.config import environment\n", "env-read"),
        ("def f():\n    from socialgen.config import environment as e\n", "env-read"),
        ("from socialgen import config\nx = config.environment('TZ')\n", "env-read"),
    ],
)
def test_the_reader_sees_a_planted_read(source: str, kind: str) -> None:
    """The check above is only as good as this: a planted read is found (and is a
    breach in any file the list does not name)."""
    found = findings_in(source, "generation/planted.py")
    assert [one.kind for one in found] == [kind]
    assert breaches(found) == [str(found[0])]


def test_a_handed_in_settings_object_is_not_a_getter() -> None:
    source = (
        "x = ai_settings(runtime.settings)\ny = runtime.settings.model\n"
        "z = current_runtime().light_setting('workspace')\n"
    )
    assert findings_in(source, "generation/planted.py") == []
