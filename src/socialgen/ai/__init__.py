"""The model gateways: text, over litellm providers and the embedded model, and images.

Text: `model.py` is the one contract (`stream()` yields chunks), met by `remote.py` (any
provider litellm knows), `openai_compatible.py` (httpx straight to OpenAI-compatible
endpoints for `openai/…` and `hosted_vllm/…`, with no litellm import) and `local.py`
(embedded llama.cpp: the model loads its GGUF once, through an engine object of its own,
and answers one request at a time on a worker thread of its own). The engine is chosen
by `engine.py` and asked as `engine_contract.py` says:
`engine_xllamacpp.XLlamaCppEngine` or `engine_llama_cpp.LlamaCppEngine`. `registry.py`
makes the model the settings (`settings.py`) name, a new one each call (the Runtime
keeps it); `early_stream.py` hands out later an answer started early (for
`generation/head_start.py`).

Structured answers on any provider are `structured.py`'s: the format ladder json_schema
-> json_object -> text, remembered on the model object, which the Runtime keeps, in its
profile (`model_profile.py`: where every small-model choice is read).
`json_text.py` finds the JSON in prose, `json_repair.py` closes a cut answer and
`json_salvage.py` keeps an answer's valid items. Plans from small models come as line
lists under a llama.cpp grammar (`line_lists.py`).

Images: the image gateway is `images.py` (its types in `image_types.py`), and
`procedural.py` draws slide images offline.

Local models (docs/models.md): the pull catalogue (`catalogue.py`), pulled files and
`local/NAME` (`model_files.py`), a GGUF's parameter count (`gguf_header.py`), Ollama's
tags (`ollama_tags.py`), the hub download (`hub_pull.py`, `pull_progress.py`), the
listing (`model_listing.py`), whether a configured value can write (`model_check.py`;
litellm's routing in `remote.route_problem`), and what `models default` writes
(`model_choice.py`).
"""
