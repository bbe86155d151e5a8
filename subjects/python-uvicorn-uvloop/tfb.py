"""TechEmpower's database types over an asyncpg pool: db, queries, fortunes, updates and
cached-queries (json needs no database and is answered by each app).

Every World row is its own query; asyncpg prepares each statement once per connection and
reuses it (its statement cache, https://magicstack.github.io/asyncpg/current/api/index.html).
Updates are written in one UNNEST statement before the answer (TechEmpower allows batched
updates, not batched reads). cached-queries read through async-lru's alru_cache, filled from
CachedWorld on a miss. The fortunes rows come back sorted here; each app renders them with
Jinja2 (autoescaping on).

This file is the same in python-uvicorn, python-uvicorn-uvloop, python-aiohttp and
python-sanic (crates/harness/tests/it/subject_copies.rs checks it); change all four.
"""
import asyncio
import random
from dataclasses import dataclass

from async_lru import alru_cache

WORLD_SQL = "SELECT id, randomNumber FROM World WHERE id = $1"
FORTUNES_SQL = "SELECT id, message FROM Fortune"
CACHED_SQL = "SELECT id, randomNumber FROM CachedWorld WHERE id = $1"
UPDATE_SQL = (
    "UPDATE World SET randomNumber = v.r "
    "FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v "
    "WHERE World.id = v.id"
)
ADDED_FORTUNE = "Additional fortune added at request time."
# 500 rows take longer than /users's 2 s may allow under load; a dead database still gives 503.
DEADLINE = 5
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


class TechEmpower:
    """The five database types of one process, over the pool it already has for /users.

    Each method returns None when the database is missing or fails (the app answers 503).
    """

    def __init__(self, pool_of):
        # pool_of() is the pool at request time: it is created at start-up, after this object.
        self.pool_of = pool_of
        self.cached_world = alru_cache(maxsize=ROWS)(self._cached_world)

    async def _run(self, work):
        pool = self.pool_of()
        if pool is None:
            return None
        try:
            return await asyncio.wait_for(work(pool), DEADLINE)
        except Exception:
            return None

    @staticmethod
    async def _worlds(conn, n):
        rows = []
        for _ in range(n):
            rows.append(world(await conn.fetchrow(WORLD_SQL, random_id())))
        return rows

    async def db(self):
        async def work(pool):
            async with pool.acquire() as conn:
                return (await self._worlds(conn, 1))[0]

        return await self._run(work)

    async def queries(self, n):
        async def work(pool):
            async with pool.acquire() as conn:
                return await self._worlds(conn, n)

        return await self._run(work)

    async def fortunes(self):
        """Every fortune and the one added per request, sorted by message here (no ORDER BY)."""

        async def work(pool):
            async with pool.acquire() as conn:
                rows = await conn.fetch(FORTUNES_SQL)
            fortunes = [Fortune(r[0], r[1]) for r in rows]
            fortunes.append(Fortune(0, ADDED_FORTUNE))
            fortunes.sort(key=lambda f: f.message)
            return fortunes

        return await self._run(work)

    async def updates(self, n):
        """n rows read one query each, given new numbers and written in one statement before
        the answer (an id drawn twice keeps its last number, the one answered last)."""

        async def work(pool):
            async with pool.acquire() as conn:
                rows = await self._worlds(conn, n)
                last = {}
                for row in rows:
                    row["randomNumber"] = random_id()
                    last[row["id"]] = row["randomNumber"]
                # One lock order for every request: updates locking rows in id order cannot
                # deadlock each other.
                ids = sorted(last)
                await conn.execute(UPDATE_SQL, ids, [last[i] for i in ids])
            return rows

        return await self._run(work)

    async def _cached_world(self, id):
        async with self.pool_of().acquire() as conn:
            return world(await conn.fetchrow(CACHED_SQL, id))

    async def cached_queries(self, n):
        """n CachedWorld rows through the cache: a miss reads the row once (errors are not cached)."""

        async def work(pool):
            return [await self.cached_world(random_id()) for _ in range(n)]

        return await self._run(work)
