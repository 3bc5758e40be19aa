"""The local store: SQLModel tables on SQLite (default) or PostgreSQL."""
