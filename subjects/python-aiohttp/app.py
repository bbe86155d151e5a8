"""restbench subject: aiohttp web application, served by gunicorn with the
aiohttp.GunicornWebWorker worker class (one asyncio event loop per worker process).

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users, GET /delay/{ms}; anything else
404 (405 for a known path with a wrong method, aiohttp's own handling). JSON through orjson as
in seed 003, the database through an asyncpg pool created at start-up (on_startup), one per
worker.
Bodies over 1 MiB: 413 (Content-Length checked up front, client_max_size while reading).
TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries: the database
types in tfb.py, the fortunes page through aiohttp-jinja2 (autoescaping on, its default);
aiohttp adds the Server and Date headers TechEmpower requires to every answer.
HttpArena's GET /static/{file} through aiohttp's own static route (add_static: FileResponse,
sendfile, ETag and Last-Modified, 304), /rest/todo compressed per request by
Response.enable_compression() when Accept-Encoding asks, POST /upload over request.read(),
GET /download/{n}.
"""
import asyncio
import os
import sys
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import aiohttp_jinja2
import asyncpg
import jinja2
import orjson
from aiohttp import web

import tfb

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413
DELAY_MAX_MS = 10_000  # GET /delay/{ms} waits at most 10 s; more is answered with 400
DOWNLOAD_MAX = 10 * 1024 * 1024  # GET /download/{n} sends at most 10 MiB; more is a 400
# byte i is i mod 256; each answer is a slice of this buffer, made once per worker
DOWNLOAD = bytes(range(256)) * (DOWNLOAD_MAX // 256)
STATIC_DIR = os.environ.get("STATIC_DIR")  # unset or missing: no static route, so 404s

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
techempower = tfb.TechEmpower(lambda: db.pool)


async def plaintext(request):
    return web.Response(body=PLAIN, content_type="text/plain", charset="utf-8")


async def todo(request):
    response = web.Response(
        body=orjson.dumps(TODOS, option=orjson.OPT_UTC_Z), content_type="application/json"
    )
    # aiohttp compresses the body per request (deflate or gzip, as Accept-Encoding names them;
    # none without the header or for `identity`), with no minimum size; it adds no Vary itself
    response.enable_compression()
    response.headers["Vary"] = "Accept-Encoding"
    return response


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


async def upload(request):
    """The length and CRC-32 of the body as aiohttp reads it (chunked or not), never
    Content-Length's; over 1 MiB: 413, up front or from client_max_size while reading."""
    cl = request.content_length
    if cl is not None and cl > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=cl)
    body = await request.read()
    return web.Response(text=f"{len(body)} {zlib.crc32(body):08x}")


async def download(request):
    """n bytes, byte i = i mod 256. The route's pattern takes 1 to 8 ASCII digits (anything
    else: 404); above DOWNLOAD_MAX: 400."""
    n = int(request.match_info["n"])
    if n > DOWNLOAD_MAX:
        raise web.HTTPBadRequest(text="size above 10485760 bytes")
    return web.Response(body=DOWNLOAD[:n], content_type="application/octet-stream")


async def users(request):
    result = await db.users()
    if result is None:
        raise web.HTTPServiceUnavailable(text="database unavailable")
    return web.Response(body=orjson.dumps(result), content_type="application/json")


async def delay(request):
    """Answers {ms} after waiting that long on the event loop's timer (asyncio.sleep suspends
    only this handler). The route's pattern takes 1 to 5 ASCII digits (anything else: 404);
    above DELAY_MAX_MS: 400, at once."""
    ms = int(request.match_info["ms"])
    if ms > DELAY_MAX_MS:
        raise web.HTTPBadRequest(text="wait above 10000 ms")
    await asyncio.sleep(ms / 1000)
    return web.Response(text=str(ms))


def json_answer(result):
    if result is None:
        raise web.HTTPServiceUnavailable(text="database unavailable")
    return web.Response(body=orjson.dumps(result), content_type="application/json")


async def message(request):
    return web.Response(
        body=orjson.dumps({"message": "Hello, World!"}), content_type="application/json"
    )


async def single_query(request):
    return json_answer(await techempower.db())


async def queries(request):
    return json_answer(await techempower.queries(tfb.count(request.query.get("queries"))))


async def updates(request):
    return json_answer(await techempower.updates(tfb.count(request.query.get("queries"))))


async def cached_queries(request):
    return json_answer(await techempower.cached_queries(tfb.count(request.query.get("count"))))


async def fortunes(request):
    rows = await techempower.fortunes()
    if rows is None:
        raise web.HTTPServiceUnavailable(text="database unavailable")
    return aiohttp_jinja2.render_template("fortunes.html", request, {"fortunes": rows})


async def on_startup(app):
    await db.open()


async def on_cleanup(app):
    await db.close()


app = web.Application(client_max_size=MAX_BODY)
app.router.add_get("/api/test", plaintext, allow_head=False)
app.router.add_get("/rest/todo", todo, allow_head=False)
app.router.add_post("/echo", echo)
app.router.add_get("/users", users, allow_head=False)
app.router.add_get("/delay/{ms:[0-9]{1,5}}", delay, allow_head=False)
app.router.add_get("/json", message, allow_head=False)
app.router.add_get("/db", single_query, allow_head=False)
app.router.add_get("/queries", queries, allow_head=False)
app.router.add_get("/fortunes", fortunes, allow_head=False)
app.router.add_get("/updates", updates, allow_head=False)
app.router.add_get("/cached-queries", cached_queries, allow_head=False)
app.router.add_post("/upload", upload)
app.router.add_get("/download/{n:[0-9]{1,8}}", download, allow_head=False)
if STATIC_DIR and os.path.isdir(STATIC_DIR):
    # files directly from disk per request; aiohttp refuses paths that leave the folder
    app.router.add_static("/static", STATIC_DIR)
aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"))
app.on_startup.append(on_startup)
app.on_cleanup.append(on_cleanup)
