"""socialgen: local-first AI writer and manager for social posts."""

__version__ = "0.1.0"
