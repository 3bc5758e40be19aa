"""The command line's layer: the `socialgen` root command (`main.py`) and what every
feature's commands share: the Runtime in typer's context, `--json` and `--workspace`,
errors in red (`support.py`), the console every command prints through, which shows
control characters as symbols (`printable_console.py`), event streams in the terminal
(`events.py`), ids and names a command takes (`refs.py`), the API's field names in the
CLI's words (`words.py`), streamed text wrapped at the terminal's width (`wrap.py`),
and how the process ends (`process_exit.py`)."""
