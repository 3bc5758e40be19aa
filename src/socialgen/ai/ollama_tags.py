"""The models of an Ollama server, when one answers (`GET /api/tags`), usable at once
as `ollama/NAME`. OLLAMA_HOST is honoured as Ollama itself reads it."""

from __future__ import annotations

from dataclasses import dataclass

from socialgen.ai.gguf_header import parse_size_label

DEFAULT_HOST = "http://127.0.0.1:11434"
PREFIXES = ("ollama/", "ollama_chat/")


@dataclass(frozen=True)
class OllamaModel:
    name: str
    size_bytes: int | None
    parameters: int | None  # from the tag's details.parameter_size ("3.2B")

    @property
    def use(self) -> str:
        return f"ollama/{self.name}"


def ollama_base(api_base: str | None = None) -> str:
    """The server to ask: the configured api_base, else OLLAMA_HOST, else the default."""
    from socialgen.config import environment

    host = (api_base or environment("OLLAMA_HOST")).strip().rstrip("/")
    if not host:
        return DEFAULT_HOST
    if "://" not in host:
        host = f"http://{host}"
    return host.replace("://0.0.0.0", "://127.0.0.1")  # a listen-everywhere address


def ollama_models(api_base: str | None = None, timeout: float = 0.5) -> list[OllamaModel] | None:
    """The server's models; None when no Ollama server answers there."""
    import httpx

    try:
        response = httpx.get(f"{ollama_base(api_base)}/api/tags", timeout=timeout)
        response.raise_for_status()
        listed = response.json().get("models")
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if not isinstance(listed, list):
        return None
    return [found for entry in listed if (found := _model(entry)) is not None]


def _model(entry: object) -> OllamaModel | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return None
    details = entry.get("details") if isinstance(entry.get("details"), dict) else {}
    label = details.get("parameter_size") if details else None
    size = entry.get("size")
    return OllamaModel(
        name=entry["name"],
        size_bytes=size if isinstance(size, int) else None,
        parameters=parse_size_label(label) if isinstance(label, str) else None,
    )


def ollama_parameters(model: str, api_base: str | None) -> int | None:
    """The parameter count of `ollama/NAME` as its server reports it (None: unknown)."""
    name = next((model[len(p) :] for p in PREFIXES if model.startswith(p)), None)
    if name is None:
        return None
    listed = ollama_models(api_base) or []
    wanted = {name, f"{name}:latest"}
    return next((found.parameters for found in listed if found.name in wanted), None)
