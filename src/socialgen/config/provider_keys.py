"""AI provider API keys kept in a file beside config.toml (`provider-keys.json`, mode
0600), as `llm keys` does, so a person need not export OPENAI_API_KEY in every shell.

An exported variable (OPENAI_API_KEY ...) still wins: deployments keep using their
environment. A stored key is handed to litellm as `api_key=` for that call only;
it is never put in os.environ (a child process or a log of the environment would see
it), and never printed: messages name the provider, not the key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from socialgen.config.file import ConfigError, config_path, write_atomically

FILENAME = "provider-keys.json"

# litellm's provider prefix -> the variable litellm reads the key from.
PROVIDERS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "cohere": "COHERE_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "xai": "XAI_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
}


def keys_path() -> Path:
    return config_path().parent / FILENAME


def provider_named(name: str) -> str:
    """The provider's canonical name; ConfigError naming the known ones."""
    normal = name.strip().lower().replace("-", "_")
    if normal in PROVIDERS:
        return normal
    import difflib

    near = difflib.get_close_matches(normal, PROVIDERS, n=1, cutoff=0.6)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    raise ConfigError(
        f"Unknown provider {name!r}.{hint} Known providers: {', '.join(PROVIDERS)}",
        status_code=400,
    )


def stored_names() -> list[str]:
    return sorted(_read())


def store_key(provider: str, key: str) -> Path:
    name = provider_named(provider)
    key = key.strip()
    if not key:
        raise ConfigError(f"No key given for {name}: nothing was stored", status_code=400)
    if any(ch.isspace() or not ch.isprintable() for ch in key):
        raise ConfigError(
            f"The key for {name} has spaces or control characters in it: nothing was stored",
            status_code=400,
        )
    keys = _read()
    keys[name] = key
    return _write(keys)


def remove_key(provider: str) -> bool:
    """Forget the stored key; False when none was stored."""
    name = provider_named(provider)
    keys = _read()
    if name not in keys:
        return False
    del keys[name]
    _write(keys)
    return True


def key_for(provider: str | None) -> str | None:
    """The stored key to hand to litellm for `provider`, or None: none stored, or the
    provider's variable is exported (litellm reads that one itself)."""
    if provider is None or provider not in PROVIDERS:
        return None
    if (os.environ.get(PROVIDERS[provider]) or "").strip():
        return None
    return _read().get(provider)


def provider_prefix(model: str) -> str | None:
    """`openai/gpt-4o-mini` -> "openai"; None when the model names no known provider."""
    prefix, slash, _ = model.partition("/")
    return prefix.lower() if slash and prefix.lower() in PROVIDERS else None


def _read() -> dict[str, str]:
    path = keys_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the provider keys ({error.strerror})") from None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        # No detail from the parser: it could quote a key.
        raise ConfigError(
            f"{path}: not a provider keys file (a JSON object of names to keys); "
            "remove it and store the keys again"
        )
    return data


def _write(keys: dict[str, str]) -> Path:
    path = keys_path()
    write_atomically(path, json.dumps(keys, indent=2, sort_keys=True) + "\n", mode=0o600)
    return path
