"""Where games are kept: SQLite (``db``, the embedded default) or PostgreSQL (``postgres``)
behind one interface, the schema's numbered migrations, and caches sized in bytes (``lru``)."""
