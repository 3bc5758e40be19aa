"""What can write, for `socialgen models list`: the embedded model, the pulled GGUFs,
the configured provider model (with why it cannot write, when it cannot), an Ollama
server's models; and what can be pulled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from socialgen.ai.catalogue import CATALOGUE, known_by_file
from socialgen.ai.model_check import model_problem
from socialgen.ai.model_files import embedded_model, is_small, pulled_models, resolve_local
from socialgen.ai.ollama_tags import ollama_base, ollama_models
from socialgen.ai.settings import ai_settings
from socialgen.kit.errors import SocialgenError

if TYPE_CHECKING:
    from pathlib import Path

    from socialgen.config.loading import AppSettings

EMBEDDED_LICENCE = "Apache-2.0"


@dataclass(frozen=True)
class Usable:
    use: str  # the exact SOCIALGEN_MODEL value
    source: str  # embedded | pulled | configured | ollama
    size_bytes: int | None
    parameters: int | None
    licence: str | None
    in_use: bool
    problem: str | None = None  # why a configured value cannot write (model_check.py)

    def as_json(self) -> dict[str, Any]:
        return {
            "use": self.use,
            "source": self.source,
            "sizeBytes": self.size_bytes,
            "parameters": self.parameters,
            "licence": self.licence,
            "small": is_small(self.parameters),
            "inUse": self.in_use,
            "problem": self.problem,
        }


def usable_models(settings: AppSettings, models: Path) -> tuple[list[Usable], bool]:
    """Every model that can write now (`settings`, `models`: a Runtime's settings and
    models folder), and whether an Ollama server answered."""
    configured = ai_settings(settings)
    chosen = configured.model
    chosen_path = _local_path(chosen, models)
    found: list[Usable] = []
    embedded = embedded_model()
    found.append(
        Usable(
            embedded.use,
            "embedded",
            embedded.path.stat().st_size,
            embedded.parameters,
            EMBEDDED_LICENCE,
            chosen is None or chosen_path == embedded.path.resolve(),
        )
    )
    for pulled in pulled_models(models):
        known = known_by_file(pulled.path.name)
        found.append(
            Usable(
                pulled.use,
                "pulled",
                pulled.path.stat().st_size,
                pulled.parameters,
                known.licence if known else None,
                chosen_path == pulled.path.resolve(),
            )
        )
    served = ollama_models(configured.api_base if _is_ollama(chosen) else None)
    for model in served or []:
        found.append(
            Usable(
                model.use, "ollama", model.size_bytes, model.parameters, None, model.use == chosen
            )
        )
    if chosen and not any(usable.in_use for usable in found):
        problem = model_problem(chosen, configured.api_base, models)
        found.append(Usable(chosen, "configured", None, None, None, True, problem))
    return found, served is not None


def to_pull(usable: list[Usable]) -> list[dict[str, Any]]:
    """The catalogue's models not pulled yet."""
    have = {usable.use for usable in usable}
    return [
        {
            "name": known.name,
            "repo": known.repo,
            "file": known.filename,
            "sizeBytes": known.size_bytes,
            "memoryBytes": known.memory_bytes,
            "parameters": known.parameters,
            "licence": known.licence,
            "note": known.note,
            "pull": f"socialgen models pull {known.name}",
        }
        for known in CATALOGUE
        if f"local/{known.name}" not in have
    ]


def ollama_address() -> str:
    return ollama_base()


def _is_ollama(model: str | None) -> bool:
    return bool(model) and str(model).startswith(("ollama/", "ollama_chat/"))


def _local_path(model: str | None, models: Path) -> Any:
    if not model or not model.startswith("local/"):
        return None
    try:
        return resolve_local(model[len("local/") :], models).resolve()
    except SocialgenError:
        return None
