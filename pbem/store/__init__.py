"""Where games are kept: SQLite (``db``, the embedded default) or PostgreSQL (``postgres``)
behind one interface, the schema's numbered migrations, caches sized in bytes (``lru``),
and the app's one clock (``utc``: its ``now``, and times as they are stored)."""
