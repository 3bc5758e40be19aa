"""`socialgen models list|pull` against stand-ins on 127.0.0.1: a Hugging Face hub that
answers huggingface_hub's download protocol (HF_ENDPOINT) with a GGUF the tests have
(the embedded model's file), and an Ollama server's /api/tags. Nothing leaves the
machine; every command runs through the real CLI on a temporary SOCIALGEN_HOME."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from socialgen.ai.local import LlamaCppModel, embedded_model_path
from socialgen.ai.remote import LiteLLMModel
from socialgen.app.runtime import Runtime
from socialgen.cli.events import BETTER_MODEL_HINT
from socialgen.cli.main import app
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedModel
from tests.fakes.hf_hub_server import FakeHub, running_hub
from tests.fakes.ollama_server import running_ollama, tag

QWEN_REPO = "Qwen/Qwen2.5-1.5B-Instruct-GGUF"
QWEN_FILE = "qwen2.5-1.5b-instruct-q4_k_m.gguf"
OTHER_REPO = "someone/tiny-GGUF"
OTHER_FILE = "tiny-model-Q8_0.gguf"

runner = CliRunner()
GGUF_BYTES = embedded_model_path().read_bytes()


@pytest.fixture(autouse=True)
def _sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # nothing answers there
    monkeypatch.setenv("COLUMNS", "200")
    for name in ("SOCIALGEN_MODEL", "SOCIALGEN_API_BASE", "SOCIALGEN_SMALL_MODEL", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    # No model cache to empty: registry.text_model builds a new model each call (the
    # Runtime keeps it).


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    files = {(QWEN_REPO, QWEN_FILE): GGUF_BYTES, (OTHER_REPO, OTHER_FILE): GGUF_BYTES[:4096]}
    with running_hub(files) as running:
        monkeypatch.setenv("HF_ENDPOINT", running.hub_url)
        yield running


def invoke(*args: str, runtime: Runtime | None = None) -> Result:
    result = runner.invoke(app, list(args), obj=runtime)
    assert "Traceback" not in result.output
    return result


def models_dir() -> Path:
    import os

    return Path(os.environ["SOCIALGEN_HOME"]) / "models"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- pull


def test_a_catalogue_model_is_pulled_checked_and_usable_by_its_short_name(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = invoke("models", "pull", "qwen2.5-1.5b")

    assert result.exit_code == 0, result.output
    pulled = models_dir() / QWEN_FILE
    assert sha256(pulled) == hub.sha256(QWEN_REPO, QWEN_FILE)
    assert "SOCIALGEN_MODEL=local/qwen2.5-1.5b" in result.stdout
    assert "98 MB" in result.stderr  # said before downloading how much comes
    assert not list(models_dir().glob("*.incomplete"))
    assert [r.method for r in hub.requests] == ["HEAD", "GET"]
    # Private like all of SOCIALGEN_HOME (issue 25), whatever the umask.
    assert (pulled.stat().st_mode & 0o777, models_dir().stat().st_mode & 0o777) == (0o600, 0o700)

    monkeypatch.setenv("SOCIALGEN_MODEL", "local/qwen2.5-1.5b")
    model = Runtime().text_model()
    assert isinstance(model, LlamaCppModel) and model.path == pulled
    assert model.small, "135M parameters in its header: it plans as a small model"


def test_a_download_cut_halfway_is_resumed_by_the_next_pull(hub: FakeHub) -> None:
    hub.cut_next = True  # half the bytes, then the connection drops and the CDN is down

    first = invoke("models", "pull", "qwen2.5-1.5b")

    assert first.exit_code == 1
    assert "run the same command again to resume" in first.stderr
    partial = next(models_dir().glob("*.incomplete"))
    kept = partial.stat().st_size
    assert 0 < kept <= len(GGUF_BYTES) // 2
    assert not (models_dir() / QWEN_FILE).exists()

    hub.down = False
    second = invoke("models", "pull", "qwen2.5-1.5b", "--json")

    assert second.exit_code == 0, second.output
    assert hub.ranges()[-1] == f"bytes={kept}-", hub.requests
    data = json.loads(second.stdout)
    assert data["resumedFrom"] == kept and data["use"] == "local/qwen2.5-1.5b"
    assert data["sha256"] == hub.sha256(QWEN_REPO, QWEN_FILE)
    assert sha256(models_dir() / QWEN_FILE) == data["sha256"]
    assert not partial.exists()


def test_a_file_that_does_not_match_the_hubs_sha256_is_deleted_and_refused(
    hub: FakeHub,
) -> None:
    hub.corrupt = True

    result = invoke("models", "pull", "qwen2.5-1.5b")

    assert result.exit_code == 1
    assert "does not match the hub's sha256" in result.stderr
    assert "deleted" in result.stderr
    assert list(models_dir().iterdir()) == []


def test_any_repo_file_is_pulled_and_named_by_its_file(hub: FakeHub) -> None:
    result = invoke("models", "pull", f"{OTHER_REPO}/{OTHER_FILE}", "--json")

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["use"] == "local/tiny-model-Q8_0" and data["alreadyPulled"] is False
    assert result.stderr == ""  # --json: no bar, no notes

    again = invoke("models", "pull", f"{OTHER_REPO}/{OTHER_FILE}", "--json")
    assert json.loads(again.stdout)["alreadyPulled"] is True
    assert [r.method for r in hub.requests] == ["HEAD", "GET"], "nothing asked the second time"


def test_too_little_disk_space_is_said_before_anything_is_downloaded(hub: FakeHub) -> None:
    hub.advertised_size = 10**16  # 10 PB

    result = invoke("models", "pull", "qwen2.5-1.5b")

    assert result.exit_code == 1
    assert "Not enough disk space to pull" in result.stderr
    assert "10000000.0 GB" in result.stderr
    assert hub.ranges() == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("gpt-5", "Unknown model 'gpt-5': pull one of qwen2.5-1.5b"),
        ("nobody/nothing-GGUF/x.gguf", "No model repository nobody/nothing-GGUF"),
        (f"{QWEN_REPO}/missing.gguf", f"{QWEN_REPO} has no file missing.gguf"),
        ("a b/c/x.gguf", "Not a hub repository id: 'a b/c'"),
        ("a/b/.gguf", "Unknown model 'a/b/.gguf'"),
    ],
)
def test_a_model_that_cannot_be_pulled_is_named_clearly(
    hub: FakeHub, name: str, message: str
) -> None:
    result = invoke("models", "pull", name)

    assert result.exit_code == 1
    assert message in result.stderr, result.stderr
    assert not models_dir().exists() or list(models_dir().iterdir()) == []


def test_a_bad_revision_is_named(hub: FakeHub) -> None:
    result = invoke("models", "pull", "qwen2.5-1.5b", "--revision", "v9")

    assert result.exit_code == 1
    assert f"{QWEN_REPO} has no revision 'v9'" in result.stderr


def test_an_unreachable_hub_is_said_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")

    result = invoke("models", "pull", "qwen2.5-1.5b", "--json")

    assert result.exit_code == 1
    error = json.loads(result.stdout)
    assert error["success"] is False
    assert error["message"].startswith("Could not reach the hub for " + QWEN_REPO)


# --------------------------------------------------------------------------- list


def test_the_list_shows_the_embedded_model_in_use_and_what_can_be_pulled() -> None:
    result = invoke("models", "list", "--json")

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["models"] == [
        {
            "use": "local/smollm2-135m",
            "source": "embedded",
            "sizeBytes": len(GGUF_BYTES),
            "parameters": 135_000_000,
            "licence": "Apache-2.0",
            "small": True,
            "inUse": True,
            "problem": None,
        }
    ]
    names = [known["name"] for known in data["available"]]
    assert names[:3] == ["qwen2.5-1.5b", "smollm2-1.7b", "llama3.2-3b"]
    assert all(known["sizeBytes"] and known["licence"] for known in data["available"])
    assert data["ollama"] == {"address": "http://127.0.0.1:9", "running": False}


def test_the_list_shows_pulled_ollama_and_configured_models(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("models", "pull", "qwen2.5-1.5b").exit_code == 0
    tags = [tag("qwen2.5:0.5b", 397_821_319, "494.03M"), tag("llama3.2:3b", 2_019_393_189, "3.2B")]
    with running_ollama(tags) as address:
        monkeypatch.setenv("OLLAMA_HOST", address)
        monkeypatch.setenv("SOCIALGEN_MODEL", "local/qwen2.5-1.5b")
        listed = json.loads(invoke("models", "list", "--json").stdout)
        monkeypatch.setenv("SOCIALGEN_MODEL", "openai/gpt-4o-mini")
        configured = json.loads(invoke("models", "list", "--json").stdout)
        table = invoke("models", "list").stdout

    uses = {model["use"]: model for model in listed["models"]}
    assert set(uses) == {
        "local/smollm2-135m",
        "local/qwen2.5-1.5b",
        "ollama/qwen2.5:0.5b",
        "ollama/llama3.2:3b",
    }
    assert uses["local/qwen2.5-1.5b"]["inUse"] and not uses["local/smollm2-135m"]["inUse"]
    assert uses["local/qwen2.5-1.5b"]["source"] == "pulled"
    assert uses["ollama/llama3.2:3b"]["parameters"] == 3_200_000_000
    assert not uses["ollama/llama3.2:3b"]["small"] and uses["ollama/qwen2.5:0.5b"]["small"]
    assert listed["ollama"]["running"] is True
    assert "qwen2.5-1.5b" not in [known["name"] for known in listed["available"]]
    assert configured["models"][-1] == {
        "use": "openai/gpt-4o-mini",
        "source": "configured",
        "sizeBytes": None,
        "parameters": None,
        "licence": None,
        "small": False,
        "inUse": True,
        "problem": None,
    }
    assert "ollama/llama3.2:3b" in table and "openai/gpt-4o-mini" in table


# ------------------------------------------------------------- small-model planning


def test_ollama_models_plan_as_small_ones_by_their_tags_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tags = [tag("qwen2.5:0.5b", 397_821_319, "494.03M"), tag("llama3.2:3b", 2_019_393_189, "3.2B")]
    with running_ollama(tags) as address:
        monkeypatch.setenv("SOCIALGEN_API_BASE", f"http://{address}")
        found = {}
        for name in ("ollama/qwen2.5:0.5b", "ollama_chat/llama3.2:3b", "ollama/unknown"):
            monkeypatch.setenv("SOCIALGEN_MODEL", name)
            model = Runtime().text_model()
            assert isinstance(model, LiteLLMModel)
            found[name] = model.small
        monkeypatch.setenv("SOCIALGEN_SMALL_MODEL", "0")
        monkeypatch.setenv("SOCIALGEN_MODEL", "ollama/qwen2.5:0.5b")
        overridden = Runtime().text_model().small

    assert found == {
        "ollama/qwen2.5:0.5b": True,
        "ollama_chat/llama3.2:3b": False,
        "ollama/unknown": False,
    }
    assert overridden is False, "SOCIALGEN_SMALL_MODEL still decides when set"


def test_local_models_plan_by_their_size_unless_told(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("models", "pull", "qwen2.5-1.5b").exit_code == 0
    monkeypatch.setenv("SOCIALGEN_MODEL", "local/qwen2.5-1.5b")
    monkeypatch.setenv("SOCIALGEN_SMALL_MODEL", "no")
    assert Runtime().text_model().small is False
    monkeypatch.delenv("SOCIALGEN_MODEL")
    monkeypatch.delenv("SOCIALGEN_SMALL_MODEL")
    assert Runtime().text_model().small is True  # the embedded default


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("local/llama3.2-3b", "Model llama3.2-3b is not pulled yet: run `socialgen models pull"),
        ("local/nothing", "Model file not found: nothing (pulled models: none yet"),
        ("local//tmp/missing.gguf", "Model file not found: /tmp/missing.gguf"),
    ],
)
def test_a_local_model_that_is_not_there_is_named(
    monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setenv("SOCIALGEN_MODEL", value)

    result = invoke("post", "a topic")

    assert result.exit_code == 1
    assert message in result.stderr, result.stderr


# --------------------------------------------------------------- the way up, hinted

COMMANDS = [
    ["post", "why small teams ship weekly"],
    ["chat", "how do I write a good hook?"],
    ["batch", "why small teams ship weekly"],
    ["calendar", "7", "--prompt", "shipping weekly"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: args[0])
def test_until_a_model_is_chosen_the_output_ends_with_the_way_up(
    store: Store,
    scripted_model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
) -> None:
    """The scripted model stands in for the embedded one (marked as it is): its speed,
    not its words, would make these slow; test_embedded_model.py runs the real one."""
    runtime = Runtime(text_model=scripted_model)
    chosen = invoke(*args, runtime=runtime)
    monkeypatch.setattr(scripted_model, "embedded", True, raising=False)
    default = invoke(*args, runtime=runtime)
    as_json = invoke(*args, "--json", runtime=runtime)

    assert chosen.exit_code == default.exit_code == as_json.exit_code == 0, default.output
    assert BETTER_MODEL_HINT not in chosen.output
    assert default.stderr.strip().splitlines()[-1] == BETTER_MODEL_HINT
    assert default.output.count(BETTER_MODEL_HINT) == 1
    assert BETTER_MODEL_HINT not in as_json.output


def test_one_pull_of_a_file_at_a_time(hub: FakeHub) -> None:
    from filelock import FileLock

    from socialgen.ai.hub_pull import partial_path, pull_target, remote_file

    target = pull_target("qwen2.5-1.5b")
    partial = partial_path(target, remote_file(target), models_dir())
    partial.parent.mkdir(parents=True)
    with FileLock(f"{partial}.lock"):  # another process pulling it now
        result = invoke("models", "pull", "qwen2.5-1.5b")

    assert result.exit_code == 1
    assert f"Another pull of {QWEN_FILE} is running" in result.stderr
    assert hub.ranges() == []


# --------------------------------------------------------------------------- default


def test_the_models_folder_is_the_runtimes_home_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where `local/NAME` is looked for is handed in by the Runtime (docs/architecture.md,
    "Settings"): a home set after the Runtime read its own changes nothing."""
    from socialgen.ai.model_files import resolve_local

    runtime = Runtime()
    folder = runtime.models_dir
    assert folder == models_dir()
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path / "elsewhere"))
    assert runtime.models_dir == folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.gguf").write_bytes(b"not read here")
    assert resolve_local("mine", runtime.models_dir) == folder / "mine.gguf"


def test_models_default_writes_the_config_and_the_hint_goes(
    hub: FakeHub, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from socialgen.config.file import config_path

    assert invoke("models", "pull", "qwen2.5-1.5b").exit_code == 0
    assert Runtime().text_model().name.endswith("(embedded)")

    result = invoke("models", "default", "qwen2.5-1.5b", "--json")

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == {
        "success": True,
        "model": "local/qwen2.5-1.5b",
        "path": str(config_path()),
        "shadowedBy": None,
    }
    assert 'model = "local/qwen2.5-1.5b"' in config_path().read_text()
    model = Runtime().text_model()
    assert isinstance(model, LlamaCppModel) and model.path == models_dir() / QWEN_FILE
    listed = json.loads(invoke("models", "list", "--json").stdout)
    assert [m["use"] for m in listed["models"] if m["inUse"]] == ["local/qwen2.5-1.5b"]


def test_models_default_takes_any_listed_value_and_says_when_the_environment_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from socialgen.config.file import config_path

    monkeypatch.setenv("SOCIALGEN_MODEL", "openai/gpt-4o-mini")

    result = invoke("models", "default", "ollama/llama3.2:3b")

    assert result.exit_code == 0, result.output
    assert "Default model: ollama/llama3.2:3b" in result.stdout
    assert "SOCIALGEN_MODEL=openai/gpt-4o-mini is set here and wins" in result.stdout
    assert 'model = "ollama/llama3.2:3b"' in config_path().read_text()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("llama3.2-3b", "Model llama3.2-3b is not pulled yet: run `socialgen models pull"),
        (
            f"{QWEN_REPO}/{QWEN_FILE}",
            f"{QWEN_REPO}/{QWEN_FILE} is not pulled yet: "
            f"run `socialgen models pull {QWEN_REPO}/{QWEN_FILE}` first",
        ),
        (QWEN_REPO, f"{QWEN_REPO!r} is not a model litellm can reach: name a provider first"),
        ("nothing", "Model file not found: nothing"),
        ("  ", "Name a model"),
    ],
)
def test_models_default_refuses_a_model_that_is_not_there(name: str, message: str) -> None:
    from socialgen.config.file import config_path

    result = invoke("models", "default", name)

    assert result.exit_code == 1
    assert message in result.stderr, result.stderr
    assert not config_path().exists()


def test_models_default_takes_what_models_pull_took(hub: FakeHub) -> None:
    from socialgen.config.file import config_path

    assert invoke("models", "pull", f"{OTHER_REPO}/{OTHER_FILE}").exit_code == 0

    result = invoke("models", "default", f"{OTHER_REPO}/{OTHER_FILE}", "--json")

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model"] == "local/tiny-model-Q8_0"
    assert 'model = "local/tiny-model-Q8_0"' in config_path().read_text()
    model = Runtime().text_model()
    assert isinstance(model, LlamaCppModel) and model.path == models_dir() / OTHER_FILE


def test_a_configured_model_that_cannot_write_is_named_by_the_list(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What `models default REPO/FILE.gguf` used to write, and every command then failed.
    written = f"{QWEN_REPO}/{QWEN_FILE}"
    monkeypatch.setenv("SOCIALGEN_MODEL", written)
    monkeypatch.setenv("COLUMNS", "80")

    listed = json.loads(invoke("models", "list", "--json").stdout)
    table = invoke("models", "list")
    wrote = invoke("post", "Why small teams ship weekly")

    [configured] = [model for model in listed["models"] if model["source"] == "configured"]
    assert configured["problem"].startswith(f"{written!r} is not a model litellm can reach")
    assert "cannot write" in table.output and "name a provider first" in table.output
    assert wrote.exit_code == 1
    assert "is not a model litellm can reach" in wrote.output
    for output in (table.output, wrote.output):
        assert "LLM Provider NOT provided" not in output
    monkeypatch.setenv("SOCIALGEN_MODEL", "local/llama3.2-3b")
    missing = json.loads(invoke("models", "list", "--json").stdout)["models"][-1]
    assert missing["problem"] == (
        "Model llama3.2-3b is not pulled yet: run `socialgen models pull llama3.2-3b` first"
    )
