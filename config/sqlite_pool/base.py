"""SQLite whose connections outlive the request that opened them, for the next one.

Under ASGI Django runs each request's queries on a thread of its own and closes the connection when the
request ends, so every request would open the database again: connect, read and parse the whole schema, run
the pragmas (about 0.6 ms here), and on close, as the last connection, checkpoint the write-ahead log. This
backend keeps closed connections, a few per database file, and lends them to the next request instead.

A connection goes back only between transactions (one left open is rolled back first) and is only ever lent to
one thread at a time; SQLite allows that since Django opens it with check_same_thread=False. An in-memory
database is never closed by Django, so never pooled. SQLite connections must not cross a fork: a forked child
(a prefork Celery worker) starts with an empty pool, and a connection it inherited is neither kept nor closed
there (closing it could write to the parent's database files); it is only let go.
"""

from __future__ import annotations

import os
import threading

from django.db.backends.sqlite3 import base

KEEP = 8  # idle connections kept per database file


class _Pool:
    def __init__(self):
        self._lock = threading.Lock()
        self._idle: dict[str, list] = {}

    def take(self, name: str):
        with self._lock:
            idle = self._idle.get(name)
            return idle.pop() if idle else None

    def give(self, name: str, connection) -> bool:
        """Keep `connection` for the next request; False when it should be closed instead."""
        try:
            if connection.in_transaction:
                connection.rollback()
        except Exception:
            return False
        with self._lock:
            idle = self._idle.setdefault(name, [])
            if len(idle) >= KEEP:
                return False
            idle.append(connection)
            return True

    def forget(self) -> None:
        """In a forked child: drop the parent's connections without touching them."""
        self._lock = threading.Lock()
        self._idle = {}


pool = _Pool()
os.register_at_fork(after_in_child=pool.forget)


class Connection(base.Database.Connection):
    """sqlite3's connection, knowing the process that opened it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.pid = os.getpid()


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self):
        return {**super().get_connection_params(), "factory": Connection}

    def get_new_connection(self, conn_params):
        connection = pool.take(str(self.settings_dict["NAME"]))
        return connection if connection is not None else super().get_new_connection(conn_params)

    def _close(self):
        connection = self.connection
        if connection is None:
            return
        if getattr(connection, "pid", os.getpid()) != os.getpid():
            return  # inherited through a fork: the parent's, not ours to keep or to close
        if not self.in_atomic_block and pool.give(str(self.settings_dict["NAME"]), connection):
            return
        super()._close()
