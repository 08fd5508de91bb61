"""The embedded database's connections are kept for the next request (config/sqlite_pool)."""

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django.db.utils import ConnectionHandler

from config.sqlite_pool import base as sqlite_pool


@pytest.fixture
def handler(tmp_path):
    """A connection handler of its own on a database file of its own, set up as Fray's settings set SQLite up."""
    handler = ConnectionHandler({"default": {
        "ENGINE": "config.sqlite_pool", "NAME": str(tmp_path / "pool.sqlite3"), "OPTIONS": settings.SQLITE_OPTIONS}})
    db = handler["default"]
    with db.cursor() as cursor:
        cursor.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
    db.close()
    yield handler
    for idle in sqlite_pool.pool._idle.pop(str(tmp_path / "pool.sqlite3"), []):
        idle.close()


def raw(db):
    db.ensure_connection()
    return db.connection


def test_the_next_request_gets_the_connection_the_last_one_closed(handler):
    db = handler["default"]
    first = raw(db)
    db.close()
    assert raw(db) is first
    with db.cursor() as cursor:  # and it works as a fresh one: WAL, foreign keys, autocommit
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA foreign_keys")
        assert cursor.fetchone()[0] == 1
        cursor.execute("INSERT INTO note (text) VALUES ('kept')")
    assert db.get_autocommit() and not first.in_transaction
    db.close()
    other = sqlite3.connect(db.settings_dict["NAME"])
    assert other.execute("SELECT text FROM note").fetchall() == [("kept",)]  # committed, not held back
    other.close()


def test_a_lent_connection_sees_what_others_committed_after_it_was_last_used(handler):
    """No read left open on a kept connection: the next request reads the database as it is now."""
    db = handler["default"]
    with db.cursor() as cursor:
        cursor.execute("INSERT INTO note (text) VALUES ('first')")
        cursor.execute("SELECT text FROM note")
        assert cursor.fetchall() == [("first",)]
    db.close()
    other = sqlite3.connect(db.settings_dict["NAME"])
    other.execute("INSERT INTO note (text) VALUES ('second')")
    other.commit()
    other.close()
    with db.cursor() as cursor:
        cursor.execute("SELECT text FROM note ORDER BY id")
        assert cursor.fetchall() == [("first",), ("second",)]
    db.close()


def test_a_connection_left_in_a_transaction_is_rolled_back_before_it_is_lent_again(handler):
    db = handler["default"]
    connection = raw(db)
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("INSERT INTO note (text) VALUES ('half done')")
    db.close()
    again = raw(db)
    assert again is connection and not again.in_transaction
    assert again.execute("SELECT count(*) FROM note").fetchone() == (0,)
    db.close()


def test_two_threads_never_share_a_connection(handler):
    db = handler["default"]
    raw(db)
    db.close()  # one idle connection in the pool
    lent = []
    barrier = threading.Barrier(2)

    def request():
        mine = ConnectionHandler(handler.settings)["default"]
        lent.append(raw(mine))
        barrier.wait()  # both hold theirs at once
        mine.close()

    threads = [threading.Thread(target=request) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert lent[0] is not lent[1]


def test_only_a_few_idle_connections_are_kept(handler):
    name = handler["default"].settings_dict["NAME"]
    dbs = [ConnectionHandler(handler.settings)["default"] for _ in range(sqlite_pool.KEEP + 3)]
    for db in dbs:
        raw(db)
    for db in dbs:
        db.close()
    assert len(sqlite_pool.pool._idle[name]) == sqlite_pool.KEEP


def test_a_forked_child_opens_its_own_connections(tmp_path):
    """As a prefork Celery worker's children: run in a process of its own, which forks with no other thread."""
    code = f"""
import os
from django.db.utils import ConnectionHandler
from config.sqlite_pool import base
databases = {{"default": {{"ENGINE": "config.sqlite_pool", "NAME": {str(tmp_path / "f.sqlite3")!r}}}}}
db, kept = ConnectionHandler(databases)["default"], ConnectionHandler(databases)["default"]
db.ensure_connection()  # one in use when the process forks
kept.ensure_connection()
parents = {{id(kept.connection), id(db.connection)}}
kept.close()  # and one idle in the parent's pool
read, write = os.pipe()
pid = os.fork()
if pid == 0:  # the child, as Celery's does after a fork, closes what it inherited, then opens its own
    empty = base.pool.take(db.settings_dict["NAME"]) is None
    db.close()
    db.ensure_connection()
    own = id(db.connection) not in parents
    os.write(write, f"{{'empty' if empty else 'shared'}} {{'own' if own else 'inherited'}}".encode())
    os._exit(0)
os.waitpid(pid, 0)
print(os.read(read, 40).decode(), "kept" if base.pool.take(db.settings_dict["NAME"]) else "lost")
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run([sys.executable, "-c", "import django; django.setup()\n" + code], env=env,
                         capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.split() == ["empty", "own", "kept"]  # the child's own connection; the parent's still kept
