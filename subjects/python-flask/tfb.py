"""TechEmpower's database types over a psycopg 3 ConnectionPool: db, queries, fortunes,
updates and cached-queries (json needs no database and is answered by each app).

Every World row is its own query; the pool's connections prepare each statement on its first
use and reuse it (prepare_threshold=0, https://www.psycopg.org/psycopg3/docs/advanced/prepare.html).
Updates are written in one UNNEST statement before the answer (TechEmpower allows batched
updates, not batched reads; the connections are autocommit, so it is committed when it
returns). cached-queries read through a cachetools LRUCache (with a lock: gthread workers
serve from several threads), filled from CachedWorld on a miss. The fortunes rows come back
sorted here; each app renders them with Jinja2 (autoescaping on).

This file is the same in python-flask and python-gunicorn
(crates/harness/tests/it/subject_copies.rs checks it); change both.
"""
import random
import threading
from dataclasses import dataclass

from cachetools import LRUCache, cached

WORLD_SQL = "SELECT id, randomNumber FROM World WHERE id = %s"
FORTUNES_SQL = "SELECT id, message FROM Fortune"
CACHED_SQL = "SELECT id, randomNumber FROM CachedWorld WHERE id = %s"
UPDATE_SQL = (
    "UPDATE World SET randomNumber = v.r "
    "FROM (SELECT * FROM UNNEST(%s::int4[], %s::int4[]) AS t(id, r)) AS v "
    "WHERE World.id = v.id"
)
ADDED_FORTUNE = "Additional fortune added at request time."
ROWS = 10_000  # World and CachedWorld hold ids 1..10,000


@dataclass(slots=True)
class Fortune:
    id: int
    message: str


def count(value):
    """A row count from the query string, clamped to 1..500; missing or not a number is 1."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        return 1
    return min(max(n, 1), 500)


def random_id():
    return random.randint(1, ROWS)


def world(row):
    return {"id": row[0], "randomNumber": row[1]}


def worlds(conn, n):
    return [world(conn.execute(WORLD_SQL, (random_id(),)).fetchone()) for _ in range(n)]


class TechEmpower:
    """The five database types of one worker process, over the pool it has for /users.

    Each method returns None when the database is missing or fails (the app answers 503):
    the pool gives up on a connection after 2 s, the server cancels a statement after 2 s.
    """

    def __init__(self, pool):
        self.pool = pool
        self.cached_world = cached(LRUCache(maxsize=ROWS), lock=threading.Lock())(
            self._cached_world
        )

    def _run(self, work):
        if self.pool is None:
            return None
        try:
            return work()
        except Exception:
            return None

    def db(self):
        def work():
            with self.pool.connection() as conn:
                return worlds(conn, 1)[0]

        return self._run(work)

    def queries(self, n):
        def work():
            with self.pool.connection() as conn:
                return worlds(conn, n)

        return self._run(work)

    def fortunes(self):
        """Every fortune and the one added per request, sorted by message here (no ORDER BY)."""

        def work():
            with self.pool.connection() as conn:
                rows = conn.execute(FORTUNES_SQL).fetchall()
            fortunes = [Fortune(r[0], r[1]) for r in rows]
            fortunes.append(Fortune(0, ADDED_FORTUNE))
            fortunes.sort(key=lambda f: f.message)
            return fortunes

        return self._run(work)

    def updates(self, n):
        """n rows read one query each, given new numbers and written in one statement before
        the answer (an id drawn twice keeps its last number, the one answered last)."""

        def work():
            with self.pool.connection() as conn:
                rows = worlds(conn, n)
                last = {}
                for row in rows:
                    row["randomNumber"] = random_id()
                    last[row["id"]] = row["randomNumber"]
                # One lock order for every request: updates locking rows in id order cannot
                # deadlock each other.
                ids = sorted(last)
                conn.execute(UPDATE_SQL, (ids, [last[i] for i in ids]))
            return rows

        return self._run(work)

    def _cached_world(self, id):
        with self.pool.connection() as conn:
            return world(conn.execute(CACHED_SQL, (id,)).fetchone())

    def cached_queries(self, n):
        """n CachedWorld rows through the cache: a miss reads the row once (errors are not cached)."""
        return self._run(lambda: [self.cached_world(random_id()) for _ in range(n)])
