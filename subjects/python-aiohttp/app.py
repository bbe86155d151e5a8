"""restbench subject: aiohttp web application, served by gunicorn with the
aiohttp.GunicornWebWorker worker class (one asyncio event loop per worker process).

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users; anything else 404 (405 for a
known path with a wrong method, aiohttp's own handling). JSON through orjson as in seed 003,
the database through an asyncpg pool created at start-up (on_startup), one per worker.
Bodies over 1 MiB: 413 (Content-Length checked up front, client_max_size while reading).
"""
import asyncio
import os
import sys
from dataclasses import dataclass
from datetime import datetime, timezone

import asyncpg
import orjson
from aiohttp import web

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413

PLAIN = b"Hello, World!"


@dataclass(slots=True)
class Todo:
    title: str
    createdAt: datetime


@dataclass(slots=True)
class User:
    id: int
    username: str
    name: str
    sex: str
    address: str
    mail: str
    birthdate: str


_started = datetime.now(timezone.utc)
CREATED_AT = _started.replace(microsecond=_started.microsecond // 1000 * 1000)
TODOS = [
    Todo(title, CREATED_AT)
    for title in (
        "Do some stuff",
        "Do more stuff",
        "Even more stuff",
        "Yihaa",
        "Java is great! Or isn't it?",
        "Foo Bar",
        "Lorem ipsum",
        "Dolor sit amet",
    )
]

# Caesar cipher of seed 003 on code points <= 127: n += 14, wrapping by 26 above 127.
CIPHER = str.maketrans({n: (n + 14 if n + 14 <= 127 else n - 12) for n in range(128)})

QUERY = 'SELECT id, username, name, sex, address, mail, birthdate FROM "user"'


class Db:
    """One asyncpg pool per process, created once at start-up.

    If the database is unreachable at start-up, the pool is created with min_size=0 (no
    connection is opened), so it still exists and connects lazily on the first acquire
    once the database is back; until then /users answers 503.
    """

    def __init__(self):
        self.pool = None

    async def open(self):
        dsn = os.environ.get("DATABASE_URL")
        if not dsn:
            return
        size = int(os.environ.get("DB_POOL_SIZE") or "10")
        opts = dict(
            max_size=size,
            timeout=2,  # connect timeout
            command_timeout=2,
            max_inactive_connection_lifetime=0,
        )
        try:
            self.pool = await asyncio.wait_for(
                asyncpg.create_pool(dsn, min_size=size, **opts), 5
            )
        except Exception:
            try:
                self.pool = await asyncpg.create_pool(dsn, min_size=0, **opts)
            except Exception as e:  # e.g. a malformed DATABASE_URL: /users answers 503
                print(f"database pool not created: {e}", file=sys.stderr, flush=True)

    async def close(self):
        if self.pool is not None:
            try:
                await asyncio.wait_for(self.pool.close(), 3)
            except Exception:
                self.pool.terminate()

    async def users(self):
        pool = self.pool
        if pool is None:
            return None
        try:
            async with pool.acquire(timeout=2) as conn:
                rows = await conn.fetch(QUERY)
        except Exception:
            return None
        return [
            User(
                r[0], r[1], r[2], r[3], r[4].translate(CIPHER), r[5], r[6].isoformat()
            )
            for r in rows
        ]


db = Db()


async def plaintext(request):
    return web.Response(body=PLAIN, content_type="text/plain", charset="utf-8")


async def todo(request):
    return web.Response(
        body=orjson.dumps(TODOS, option=orjson.OPT_UTC_Z), content_type="application/json"
    )


async def echo(request):
    cl = request.content_length
    if cl is not None and cl > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=cl)
    body = await request.read()  # raises 413 past client_max_size (chunked bodies)
    try:
        out = orjson.dumps(orjson.loads(body))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        raise web.HTTPBadRequest(text="malformed JSON")
    return web.Response(body=out, content_type="application/json")


async def users(request):
    result = await db.users()
    if result is None:
        raise web.HTTPServiceUnavailable(text="database unavailable")
    return web.Response(body=orjson.dumps(result), content_type="application/json")


async def on_startup(app):
    await db.open()


async def on_cleanup(app):
    await db.close()


app = web.Application(client_max_size=MAX_BODY)
app.router.add_get("/api/test", plaintext, allow_head=False)
app.router.add_get("/rest/todo", todo, allow_head=False)
app.router.add_post("/echo", echo)
app.router.add_get("/users", users, allow_head=False)
app.on_startup.append(on_startup)
app.on_cleanup.append(on_cleanup)
