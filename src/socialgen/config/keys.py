"""Every setting: its key in config.toml, its SOCIALGEN_* variable, its kind, default
and help, and the two ways a text becomes its value.

- `strict`: what `config set` and the config file get. A value that does not fit is
  refused with a message naming the key, so a typo never lands in the file.
- `lenient`: what an environment variable gets, as before the config file existed.
  A value that does not parse falls back to the default (with a warning where an
  operator looks) and a number under the minimum becomes the minimum (or, for a key
  with `clamp=False`, the default, with the warning): a typo in a deployment's
  environment must not stop a running scheduler.

Kept light (standard library only): `socialgen --help` may import it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

logger = logging.getLogger("socialgen.config")

ENV_PREFIX = "SOCIALGEN_"
Kind = Literal["text", "url", "path", "int", "float", "duration", "flag", "secret"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Key:
    name: str  # snake_case, the key in config.toml
    kind: Kind
    default: Any  # None: unset (the help says what that means)
    help: str
    minimum: float | None = None
    maximum: float | None = None
    schemes: tuple[str, ...] = ()  # for urls: the schemes accepted
    choices: tuple[str, ...] = ()  # for texts that name one of a few things
    default_on: bool = False  # flags that are on unless turned off (any other text: on)
    # A number out of bounds in the environment: the nearest bound (True), or the
    # default with a warning (False: where the bound would be a poor guess, e.g. a
    # negative cache size read as "keep nothing").
    clamp: bool = True

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def env_only(self) -> bool:
        """Secrets are read from the environment only, never from the config file."""
        return self.kind == "secret"


def _k(name: str, kind: Kind, default: Any, help: str, **extra: Any) -> Key:
    return Key(name, kind, default, help, **extra)


_HTTP = ("http", "https")
KEYS: tuple[Key, ...] = (
    _k("home", "path", None, "data directory (store, files); default: the platform data dir"),
    _k(
        "database_url",
        "url",
        None,
        "database URL; postgresql://... for PostgreSQL; default: sqlite:///HOME/socialgen.db",
        schemes=("sqlite", "postgres", "postgresql", "postgresql+psycopg"),
    ),
    _k("workspace", "text", None, "workspace the CLI acts on; default: the default workspace"),
    _k(
        "name",
        "text",
        None,
        "your display name on carousel slides (carousel create --name wins); "
        "default: none, the slides show the handle if given",
    ),
    _k(
        "model",
        "text",
        None,
        "litellm model string, or local/NAME (socialgen models list) or local/PATH.gguf; "
        "default: embedded",
    ),
    _k("api_base", "url", None, "base URL of an OpenAI-compatible server", schemes=_HTTP),
    _k(
        "small_model",
        "flag",
        None,
        "the model is small (or not): plan in line lists under a grammar; "
        "default: by its size (under 1B parameters)",
    ),
    _k(
        "engine",
        "text",
        None,
        "what runs local GGUF models: xllamacpp or llama-cpp (the llama-cpp extra); "
        "default: llama-cpp when installed, else xllamacpp",
        choices=("xllamacpp", "llama-cpp"),
    ),
    _k("image_model", "text", None, "litellm image model; default: procedural images offline"),
    _k("image_api_base", "url", None, "base URL of the image provider", schemes=_HTTP),
    _k("pdf_timeout", "float", 30.0, "seconds generate-pdf may spend rendering", minimum=0.1),
    _k("pdf_workers", "int", 2, "generate-pdf worker processes per server process", minimum=1),
    _k("pdf_queue", "int", 8, "generate-pdf renders that may wait for a worker", minimum=0),
    _k(
        "pdf_per_caller",
        "int",
        None,
        "generate-pdf renders per caller; default: workers",
        minimum=1,
    ),
    _k("max_tokens", "int", 700, "cap on an answer's length", minimum=1),
    _k("timeout", "float", 120.0, "seconds a provider may stay silent", minimum=0.001),
    _k(
        "batch_concurrency",
        "int",
        None,
        "variations written at once; default 5 (1 small)",
        minimum=1,
    ),
    _k("keepalive_seconds", "float", 15.0, "SSE keep-alive interval", minimum=0.01),
    _k("mcp_sessions_per_caller", "int", 20, "open MCP sessions per key (+ user)", minimum=1),
    _k("mcp_session_idle", "duration", timedelta(minutes=10), "MCP idle timeout", minimum=0.1),
    _k("quota_lease_seconds", "float", 120.0, "how long a silent process keeps quota", minimum=1.0),
    _k(
        "linkedin_profile_endpoint",
        "url",
        None,
        "profile-scraping service for LinkedIn imports (URL template with {url})",
        schemes=_HTTP,
    ),
    _k("files_url", "url", None, "s3://bucket/prefix for carousel files", schemes=("s3",)),
    _k("files_redirect", "flag", False, "file GETs answer with a presigned redirect"),
    _k(
        "file_cache_mb",
        "int",
        500,
        "MB of bucket files the CLI keeps in its local cache",
        minimum=0,
        clamp=False,
    ),
    _k("allow_private_urls", "flag", False, "let URLs reach loopback/private addresses"),
    _k("secret_key", "secret", None, "Fernet key for social-account secrets (environment only)"),
    _k("publish_grace", "duration", timedelta(hours=6), "how late a due post may still go out"),
    _k("metrics_interval", "duration", timedelta(hours=1), "how often serve reads metrics"),
    _k("scheduler", "flag", True, "publishing scheduler in serve", default_on=True),
    _k(
        "scheduler_poll",
        "duration",
        timedelta(seconds=1),
        "how often the scheduler looks for due posts",
        minimum=0.05,
    ),
    _k("publish_claim", "duration", timedelta(minutes=5), "how long a worker's claim stands"),
    _k("history_deadline", "duration", timedelta(minutes=5), "one history pull's deadline"),
    _k("history_pages", "int", 500, "the most pages one history pull reads", minimum=1),
    _k("bluesky_appview", "url", None, "AppView URL to read Bluesky metrics from", schemes=_HTTP),
    _k("bluesky_app_password", "secret", None, "app password for accounts add bluesky"),
    _k("linkedin_client_id", "text", None, "your LinkedIn app's client id"),
    _k("linkedin_client_secret", "secret", None, "your LinkedIn app's client secret"),
    _k("linkedin_version", "text", "202610", "LinkedIn-Version of the Posts API (YYYYMM)"),
    _k("linkedin_timeout", "float", 10.0, "seconds per LinkedIn request", minimum=0.1),
    _k("network_timeout", "float", 10.0, "seconds per request (X, Threads, ...)", minimum=0.1),
    _k(
        "linkedin_oauth_url",
        "url",
        None,
        "LinkedIn's OAuth host; default: https://www.linkedin.com (tests: a fake server)",
        schemes=_HTTP,
    ),
    _k(
        "timezone",
        "text",
        None,
        "IANA time zone of insights and best times (e.g. Europe/Paris); default: the system's",
    ),
    _k("host", "text", "127.0.0.1", "interface serve listens on"),
    _k("port", "int", 8000, "TCP port serve listens on", minimum=1, maximum=65535),
)
BY_NAME = {key.name: key for key in KEYS}

# Variables read from the environment that are not settings: other tools' conventions
# and test hooks. Read only through config.environment(name), so this table is the
# list of every variable socialgen reads (SOCIALGEN_* settings aside, and the provider
# API keys of provider_keys.PROVIDERS).
OUTSIDE: dict[str, str] = {
    "OLLAMA_HOST": "Ollama's address, as Ollama itself reads it (when api_base is unset)",
    "HF_ENDPOINT": "the Hugging Face hub (or a mirror) `models pull` downloads from",
    "TZ": "the machine's time zone, read before /etc/localtime",
    "DISPLAY": "a desktop to open the browser in (Linux)",
    "WAYLAND_DISPLAY": "a desktop to open the browser in (Linux)",
    "AWS_ENDPOINT_URL_S3": "the S3 endpoint of a files_url bucket",
    "AWS_ENDPOINT_URL": "the S3 endpoint of a files_url bucket",
    "AWS_ENDPOINT": "the S3 endpoint of a files_url bucket",
    "AWS_ACCESS_KEY_ID": "the bucket's credentials (obstore reads them)",
    "AWS_SECRET_ACCESS_KEY": "the bucket's credentials (obstore reads them)",
    "AWS_SESSION_TOKEN": "the bucket's credentials (obstore reads them)",
    "AWS_REGION": "the bucket's region (obstore reads it)",
    "AWS_DEFAULT_REGION": "the bucket's region (obstore reads it)",
    # The OpenAI-compatible client reads what litellm would read for its providers.
    "OPENAI_BASE_URL": "an OpenAI-compatible server's address (when api_base is unset)",
    "OPENAI_API_BASE": "an OpenAI-compatible server's address (when api_base is unset)",
    "OPENAI_ORGANIZATION": "the OpenAI organization sent with each request",
    "HOSTED_VLLM_API_BASE": "a vLLM server's address (when api_base is unset)",
    "HOSTED_VLLM_API_KEY": "a vLLM server's key",
}


class UnknownKey(ValueError):
    pass


def key_named(name: str) -> Key:
    """The key called `name` (a SOCIALGEN_ variable or a dash spelling also finds it)."""
    normal = name.strip().lower().replace("-", "_")
    normal = normal.removeprefix(ENV_PREFIX.lower())
    if normal in BY_NAME:
        return BY_NAME[normal]
    import difflib  # only for a mistyped key

    near = difflib.get_close_matches(normal, BY_NAME, n=1, cutoff=0.6)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    raise UnknownKey(f"Unknown setting {name!r}.{hint} Known settings: {', '.join(BY_NAME)}")


def parse_duration(text: str) -> timedelta:
    """ "90" or "1.5" seconds, or "30m", "6h", "1d"; ValueError otherwise."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"not a duration: {text!r} (e.g. 90, 30m, 6h)")
    number, unit = match.groups()
    return timedelta(seconds=float(number) * _UNITS[(unit or "s").lower()])


def strict(key: Key, value: Any) -> Any:
    """The typed value of `value` (a TOML value or a text); ValueError naming what fits."""
    if key.env_only:
        raise ValueError(f"{key.name} is a secret: set {key.env} in the environment instead")
    if isinstance(value, str):
        value = value.strip()
    if key.kind == "flag":
        return _flag(value)
    if key.kind in ("int", "float"):
        return _bounded(key, _number(key, value))
    if key.kind == "duration":
        if _is_number(value):
            duration = timedelta(seconds=float(value))
        else:
            duration = parse_duration(str(value))
        _bounded(key, duration.total_seconds())
        return duration
    if not isinstance(value, str) or not value:
        raise ValueError("expected a non-empty text")
    if key.kind == "url":
        _check_url(key, value)
    if key.choices and value not in key.choices:
        raise ValueError(f"expected one of {', '.join(key.choices)}, got {value!r}")
    if key.name == "linkedin_version" and not re.fullmatch(r"\d{6}", value):
        raise ValueError(f"not a LinkedIn API version (YYYYMM): {value!r}")
    if key.name == "timezone" and not is_time_zone(value):
        raise ValueError(f"not an IANA time zone (e.g. Europe/Paris, UTC): {value!r}")
    return value


def lenient(key: Key, text: str) -> Any:
    """An environment variable's value, read as it always was (see the module doc)."""
    text = text.strip()
    if not text:
        return key.default
    if key.kind == "flag":
        low = text.lower()
        return low not in _FALSE if key.default_on else low in _TRUE
    try:
        if key.kind in ("int", "float"):
            number = int(text) if key.kind == "int" else float(text)
            return _clamped(key, number) if key.clamp else _bounded(key, number)
        if key.kind == "duration":
            duration = parse_duration(text)
            return max(duration, timedelta(seconds=key.minimum or 0))
    except ValueError:
        logger.warning("%s=%r is not valid; using %s", key.env, text, show(key, key.default))
        return key.default
    if key.name == "timezone" and not is_time_zone(text):
        logger.warning("%s=%r is not a time zone; using the system's", key.env, text)
        return key.default
    if key.choices and text not in key.choices:
        logger.warning(
            "%s=%r is not one of %s; using the default", key.env, text, ", ".join(key.choices)
        )
        return key.default
    return text


def is_time_zone(name: str) -> bool:
    """An IANA zone name the system knows (zoneinfo is standard library and light)."""
    from zoneinfo import ZoneInfo

    try:
        ZoneInfo(name)
    except (ValueError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return False
    return True


def show(key: Key, value: Any) -> str:
    """A value as `config list` prints it and `config set` would take it back."""
    if value is None:
        return ""
    if key.env_only:
        return "(set)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, timedelta):
        return _duration_text(value)
    return str(value)


def json_value(key: Key, value: Any) -> Any:
    """A value for --json: booleans and numbers as such, durations and paths as text,
    a secret as "(set)" (never its text)."""
    if value is None or isinstance(value, bool | int | float):
        return "(set)" if key.env_only and value is not None else value
    return show(key, value)


def to_toml(key: Key, value: Any) -> Any:
    """What the config file stores for a typed value (durations as their text)."""
    return _duration_text(value) if isinstance(value, timedelta) else value


def _duration_text(value: timedelta) -> str:
    seconds = value.total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}"


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    low = str(value).strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"expected true or false, got {value!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(key: Key, value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    if key.kind == "int":
        if isinstance(value, int):
            return value
        if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value):
            return int(value)
        raise ValueError(f"expected a whole number, got {value!r}")
    if _is_number(value):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        raise ValueError(f"expected a number, got {value!r}") from None


def _bounded(key: Key, number: float) -> Any:
    if key.minimum is not None and number < key.minimum:
        raise ValueError(f"must be at least {key.minimum:g}, got {number:g}")
    if key.maximum is not None and number > key.maximum:
        raise ValueError(f"must be at most {key.maximum:g}, got {number:g}")
    return number


def _clamped(key: Key, number: float) -> float:
    if key.minimum is not None:
        number = max(number, type(number)(key.minimum))
    if key.maximum is not None:
        number = min(number, type(number)(key.maximum))
    return number


def _check_url(key: Key, value: str) -> None:
    scheme, sep, rest = value.partition("://")
    if not sep or not scheme:
        raise ValueError(f"expected a URL starting with {key.schemes[0]}://, got {value!r}")
    if scheme.lower() not in key.schemes:
        allowed = ", ".join(f"{s}://" for s in key.schemes)
        raise ValueError(f"expected a URL starting with {allowed}; got {value!r}")
    if not rest and scheme.lower() != "sqlite":
        raise ValueError(f"the URL {value!r} names no host")
