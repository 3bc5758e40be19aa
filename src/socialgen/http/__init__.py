"""HTTP's layer: the FastAPI app (`server.py`) and what every endpoint shares: the
engine and Runtime dependencies and error bodies (`support.py`), the workspace guard
(`guard.py`: API keys and bearer tokens, roles), the body gate in front of every body
(`body_gate.py`), bodies read with their caps (`request_body.py`, `form_parts.py`,
`body_models.py`), and events as Server-Sent Events (`streaming.py`,
`stream_endpoint.py`)."""
