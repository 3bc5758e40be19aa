"""`socialgen provider-key set | list | remove`: AI provider API keys kept beside the
config file (config/provider_keys.py). Keys are read from a hidden prompt or stdin,
never from the command line (it would stay in the shell's history), and never shown."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.support import JsonOpt, command_group, emit, print_rows, styled
from socialgen.config import environment

if TYPE_CHECKING:
    from rich.console import Console

app = command_group()  # its help: the feature's Group (feature.py)

ProviderArg = Annotated[
    str, typer.Argument(help="Provider: openai, anthropic, gemini, groq, mistral, ...")
]


@app.command("set")
def set_command(
    provider: ProviderArg,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Read the key from stdin instead of a prompt.")
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """Store the API key for a provider (a hidden prompt asks for it)."""
    from socialgen.config.provider_keys import PROVIDERS, provider_named, store_key

    name = provider_named(provider)  # before asking: a typo needs no key typed
    if stdin:
        key = sys.stdin.readline()
    else:
        key = typer.prompt(f"{name} API key", hide_input=True, default="", show_default=False)
    path = store_key(name, key)
    variable = PROVIDERS[name]
    payload = {"provider": name, "variable": variable, "path": str(path), "stored": True}

    def render(out: Console) -> None:
        out.print(f"Stored the {name} key in {path}.")
        if environment(variable):
            out.print(styled(("Note:", "yellow"), f" {variable} is exported and wins over it."))

    emit(json_output, payload, render)


@app.command("list")
def list_command(json_output: JsonOpt = False) -> None:
    """The providers with a stored key (names only, never the keys)."""
    from socialgen.config.provider_keys import PROVIDERS, keys_path, stored_names

    rows = [
        {
            "provider": name,
            "variable": PROVIDERS.get(name, ""),
            "exported": bool(name in PROVIDERS and environment(PROVIDERS[name])),
        }
        for name in stored_names()
    ]
    emit(
        json_output,
        {"path": str(keys_path()), "providers": rows},
        lambda out: print_rows(out, "Stored provider keys", rows),
    )


@app.command("remove")
def remove_command(provider: ProviderArg, json_output: JsonOpt = False) -> None:
    """Forget the stored key of a provider."""
    from socialgen.config.provider_keys import provider_named, remove_key
    from socialgen.kit.errors import NotFound

    name = provider_named(provider)
    if not remove_key(name):
        raise NotFound(f"No key stored for {name}")
    emit(
        json_output,
        {"provider": name, "removed": True},
        lambda out: out.print(f"Removed the stored {name} key."),
    )
