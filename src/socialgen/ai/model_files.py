"""Local GGUF models: the embedded one, and those pulled into $SOCIALGEN_HOME/models.

The models folder is handed in (`Runtime.models_dir`: the Runtime's home, read once),
never read from the settings here.

`local/NAME` (SOCIALGEN_MODEL, `models default`) names one of them: a path to a
.gguf file, a catalogue name (`local/qwen2.5-1.5b`), or a pulled file's name with
or without `.gguf`. Whether a model plans as a small one follows its size.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from socialgen.ai.catalogue import EMBEDDED_NAME, known_by_file, known_model
from socialgen.ai.gguf_header import NotGguf, parameter_count
from socialgen.kit.errors import BadRequest

MODELS_FOLDER = "models"
GGUF = ".gguf"
# Below this many parameters a model plans in short line lists under a grammar
# (ModelProfile.plan_format): it cannot write a usable JSON plan.
SMALL_BELOW_PARAMETERS = 1_000_000_000


@dataclass(frozen=True)
class LocalModel:
    name: str  # the NAME of `local/NAME`
    path: Path
    parameters: int | None  # None: the header could not be read
    embedded: bool = False

    @property
    def use(self) -> str:
        return f"local/{self.name}"


def models_dir(home: Path) -> Path:
    """The models folder of a home (the Runtime's: `Runtime.models_dir`)."""
    return home / MODELS_FOLDER


def is_small(parameters: int | None) -> bool:
    return parameters is not None and parameters < SMALL_BELOW_PARAMETERS


def gguf_parameters(path: Path) -> int | None:
    try:
        return parameter_count(path)
    except (NotGguf, OSError):
        return None


def short_name(path: Path) -> str:
    """The name `local/NAME` takes for a pulled file: its catalogue name, else its stem."""
    known = known_by_file(path.name)
    return known.name if known else path.name.removesuffix(GGUF)


def embedded_model() -> LocalModel:
    from socialgen.ai.local import embedded_model_path

    path = embedded_model_path()
    return LocalModel(EMBEDDED_NAME, path, gguf_parameters(path), embedded=True)


def pulled_models(folder: Path) -> list[LocalModel]:
    """The verified GGUFs in the models folder (partial downloads end in .incomplete)."""
    if not folder.is_dir():
        return []
    found = sorted(path for path in folder.iterdir() if path.suffix == GGUF and path.is_file())
    return [LocalModel(short_name(path), path, gguf_parameters(path)) for path in found]


def resolve_local(name: str, folder: Path) -> Path:
    """The file `local/NAME` means (`folder`: the models folder); a clear error naming
    what exists otherwise."""
    as_path = Path(name).expanduser()
    if as_path.is_file():
        return as_path
    bare = name.strip()
    if bare.lower() == EMBEDDED_NAME:
        return embedded_model().path
    known = known_model(bare)
    candidates = [] if "/" in bare else [folder / bare, folder / f"{bare}{GGUF}"]
    if known:
        candidates.insert(0, folder / known.filename)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    if known:
        raise BadRequest(
            f"Model {known.name} is not pulled yet: run `socialgen models pull {known.name}` first"
        )
    names = ", ".join(model.name for model in pulled_models(folder)) or "none yet"
    raise BadRequest(
        f"Model file not found: {name} (pulled models: {names}; "
        "`socialgen models list` shows what can write)"
    )
