"""`socialgen models ...`: what can write, and better local models one command away."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.support import (
    JsonOpt,
    command_group,
    console,
    current_runtime,
    emit,
    fail,
    notes,
    print_rows,
    styled,
)

if TYPE_CHECKING:
    from rich.console import Console

app = command_group()  # its help: the feature's Group (feature.py)


@app.command("list")
def list_(json_output: JsonOpt = False) -> None:
    """The models that can write now (with the exact SOCIALGEN_MODEL value), and the
    local models `models pull` knows by name."""
    from socialgen.ai.catalogue import readable_bytes, readable_parameters
    from socialgen.ai.model_listing import ollama_address, to_pull, usable_models

    runtime = current_runtime()
    usable, ollama_running = usable_models(runtime.settings, runtime.models_dir)
    available = to_pull(usable)
    data: dict[str, Any] = {
        "models": [model.as_json() for model in usable],
        "available": available,
        "ollama": {"address": ollama_address(), "running": ollama_running},
    }

    def render(out: Console) -> None:
        rows = [
            {
                "": "*" if model["inUse"] else "",
                "SOCIALGEN_MODEL": model["use"],
                "source": model["source"],
                "size": readable_bytes(model["sizeBytes"]) if model["sizeBytes"] else "",
                "params": readable_parameters(model["parameters"]),
                "plans": "small" if model["small"] else "full",
            }
            for model in data["models"]
        ]
        print_rows(out, "Models that can write (* in use)", rows)
        out = notes(out)  # piped, stdout keeps only the rows above
        for model in data["models"]:
            if model["problem"]:
                out.print(styled((f"{model['use']} cannot write: ", "bold red"), model["problem"]))
        if available:
            pull_rows = [
                {
                    "name": known["name"],
                    "size": readable_bytes(known["sizeBytes"]),
                    "memory": readable_bytes(known["memoryBytes"]),
                    "licence": known["licence"],
                }
                for known in available
            ]
            print_rows(out, "Ready to pull: socialgen models pull NAME", pull_rows)
        if not ollama_running:
            out.print(f"No Ollama server answered at {ollama_address()}.", style="dim")
        out.print(
            "Use one: socialgen models default <value above>, or SOCIALGEN_MODEL=<value>.",
            style="dim",
        )

    emit(json_output, data, render)


@app.command("pull")
def pull(
    name: Annotated[
        str,
        typer.Argument(
            help="A name from `models list` (e.g. qwen2.5-1.5b) or REPO/FILE.gguf.",
            show_default=False,
        ),
    ],
    revision: Annotated[
        str, typer.Option("--revision", help="The hub revision (branch, tag or commit).")
    ] = "main",
    json_output: JsonOpt = False,
) -> None:
    """Download a GGUF from Hugging Face (HF_ENDPOINT for a mirror) into the models
    folder: resumed after an interruption, checked against the hub's sha256."""
    from socialgen.ai import hub_pull
    from socialgen.ai.catalogue import known_model, readable_bytes
    from socialgen.ai.model_files import short_name
    from socialgen.ai.pull_progress import NoBar, RichBar

    models = current_runtime().models_dir
    target = hub_pull.pull_target(name, revision)
    final = hub_pull.destination(target, models)
    if final.is_file():
        _report(json_output, _pulled_json(short_name(final), final, None, 0, already=True))
        return
    remote = hub_pull.remote_file(target)
    notes = console(stderr=True)
    if not json_output:
        known = known_model(name)
        memory = f"; about {readable_bytes(known.memory_bytes)} of memory to run" if known else ""
        notes.print(
            f"Pulling {target.repo}/{target.filename}: {readable_bytes(remote.size)}{memory}",
            style="dim",
        )
    status = notes.status("Checking the sha256 ...") if not json_output else None
    try:
        pulled = hub_pull.download(
            target,
            remote,
            models,
            NoBar if json_output else RichBar,
            on_check=status.start if status else lambda: None,
        )
    except KeyboardInterrupt:
        raise fail(
            "Pull interrupted: what arrived is kept; run the same command again to resume",
            code=130,
        ) from None
    finally:
        if status:
            status.stop()
    _report(
        json_output,
        _pulled_json(pulled.name, pulled.path, pulled.sha256, pulled.resumed_from, already=False),
    )


def _pulled_json(
    name: str, path: Any, sha256: str | None, resumed_from: int, *, already: bool
) -> dict[str, Any]:
    return {
        "success": True,
        "name": name,
        "use": f"local/{name}",
        "path": str(path),
        "sizeBytes": path.stat().st_size,
        "sha256": sha256,
        "resumedFrom": resumed_from,
        "alreadyPulled": already,
    }


def _report(json_output: bool, data: dict[str, Any]) -> None:
    from socialgen.ai.catalogue import readable_bytes

    def render(out: Console) -> None:
        verb = "Already pulled" if data["alreadyPulled"] else "Pulled"
        out.print(f"{verb} {data['name']} ({readable_bytes(data['sizeBytes'])}): {data['path']}")
        out.print(
            styled(
                "Write with it: ",
                (f"SOCIALGEN_MODEL={data['use']}", "bold"),
                f", or socialgen models default {data['name']}",
            )
        )

    emit(json_output, data, render)


@app.command("default")
def default(
    name: Annotated[
        str,
        typer.Argument(
            help="A pulled model as `models pull` named it (qwen2.5-1.5b, REPO/FILE.gguf), "
            "or any value `models list` prints (local/…, ollama/…, openai/…).",
            show_default=False,
        ),
    ],
    json_output: JsonOpt = False,
) -> None:
    """Make a model the default: written to the config file as `model`. Takes what
    `models pull` took (a catalogue name or REPO/FILE.gguf: the pulled file) or any
    value `models list` prints; a value that cannot write is refused."""
    from socialgen.ai.model_choice import default_value
    from socialgen.config import environment
    from socialgen.config.file import set_value

    value = default_value(name, current_runtime().models_dir)
    path = set_value("model", value)
    shadowed = environment("SOCIALGEN_MODEL")
    data = {"success": True, "model": value, "path": str(path), "shadowedBy": shadowed or None}

    def render(out: Console) -> None:
        out.print(styled("Default model: ", (value, "bold"), f" (in {path})"))
        if shadowed:
            out.print(
                f"SOCIALGEN_MODEL={shadowed} is set here and wins over the config file: "
                "unset it to write with the default.",
                style="yellow",
            )

    emit(json_output, data, render)
