"""Sessions in PostgreSQL: langgraph's Postgres checkpointer over a small connection pool.

Several processes (``empathygraph serve`` replicas, on one machine or many) can share one
database: a session started by one continues on another. The tables are created on first
use; an advisory lock keeps two processes starting together from migrating at once.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol

from empathygraph.errors import ConfigError

# Any constant works: it names this project's migration lock among the database's advisory locks.
MIGRATION_LOCK = 0x656D7061  # "empa"
CONNECT_TIMEOUT_S = 10.0


def redact(url: str) -> str:
    """``url`` without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


def open_postgres(url: str, serde: SerializerProtocol, *, max_connections: int = 4) -> Any:
    """A ``PostgresSaver`` on ``url``, its tables created or migrated.

    Raises:
        ConfigError: the driver is missing or the server cannot be reached.
    """
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool, PoolTimeout
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigError(
            f"sessions.db names PostgreSQL but its driver is missing ({exc.name}): "
            "pip install langgraph-checkpoint-postgres 'psycopg[binary]' psycopg-pool"
        ) from None
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=max_connections,
        # What langgraph's saver needs of a connection; a pooled one is checked before use,
        # so a database restart costs a reconnect, not a failed turn.
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        check=ConnectionPool.check_connection,
        open=False,
        name="empathygraph-sessions",
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
    except PoolTimeout:
        pool.close()
        raise ConfigError(
            f"sessions.db: cannot connect to PostgreSQL at {redact(url)} within {CONNECT_TIMEOUT_S:.0f} s "
            "(is the server running and the database created?)"
        ) from None
    saver = PostgresSaver(pool, serde=serde)
    with pool.connection() as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            saver.setup()
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
    return saver
