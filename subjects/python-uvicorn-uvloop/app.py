"""restbench subject: a bare ASGI application (no framework) served by uvicorn.

The same file serves python-uvicorn (asyncio's loop) and python-uvicorn-uvloop (uvloop): the
loop is chosen by `--loop` in each subject.toml. Keep the two copies identical
(crates/harness/tests/it/subject_copies.rs checks it).

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users, GET /delay/{ms}, and
TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries (tfb.py); anything
else 404 (405 for a known path with a wrong method). JSON through orjson, the database through
an asyncpg pool created at start-up (lifespan), one pool per uvicorn worker process; the
fortunes page through Jinja2 with autoescaping. uvicorn adds the Server and Date headers
TechEmpower requires to every answer.
"""
import asyncio
import os
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import parse_qs

import asyncpg
import jinja2
import orjson

import tfb

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413
DELAY_MAX_MS = 10_000  # GET /delay/{ms} waits at most 10 s; more is answered with 400

PLAIN = b"Hello, World!"
H_TEXT = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"13")]
CT_JSON = (b"content-type", b"application/json")
CT_TEXT = (b"content-type", b"text/plain; charset=utf-8")


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
templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
)
fortunes_page = templates.get_template("fortunes.html")
CT_HTML = (b"content-type", b"text/html; charset=utf-8")


async def respond(send, status, headers, body):
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def text(send, status, body):
    await respond(send, status, [CT_TEXT, (b"content-length", str(len(body)).encode())], body)


async def json_ok(send, body):
    await respond(send, 200, [CT_JSON, (b"content-length", str(len(body)).encode())], body)


async def delay(send, ms):
    """GET /delay/{ms}: answers `ms` after waiting that long on the event loop's timer
    (asyncio.sleep suspends only this request's task); not a whole number: 404, above
    DELAY_MAX_MS: 400, both at once. More than 5 digits is above the limit, whatever its
    value, so that no long string reaches int()."""
    if not (ms.isascii() and ms.isdigit()):
        await text(send, 404, b"not found")
        return
    wait = int(ms) if len(ms) <= 5 else DELAY_MAX_MS + 1
    if wait > DELAY_MAX_MS:
        await text(send, 400, b"wait above 10000 ms")
        return
    await asyncio.sleep(wait / 1000)
    await text(send, 200, str(wait).encode())


async def read_body(scope, receive):
    """Returns the request body, or None when it exceeds MAX_BODY (or the client left)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                if int(value) > MAX_BODY:
                    return None
            except ValueError:
                return None
    chunks = []
    size = 0
    while True:
        msg = await receive()
        if msg["type"] != "http.request":
            return None
        chunk = msg.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not msg.get("more_body", False):
            return b"".join(chunks)


async def lifespan(receive, send):
    while True:
        msg = await receive()
        if msg["type"] == "lifespan.startup":
            await db.open()
            await send({"type": "lifespan.startup.complete"})
        elif msg["type"] == "lifespan.shutdown":
            await db.close()
            await send({"type": "lifespan.shutdown.complete"})
            return


def query_count(scope, name):
    values = parse_qs(scope["query_string"].decode("latin-1")).get(name)
    return tfb.count(values[0] if values else None)


async def techempower_answer(scope, send, path):
    """Answers TechEmpower's types; False when `path` is not one of them."""
    if path == "/json":
        await json_ok(send, orjson.dumps({"message": "Hello, World!"}))
        return True
    if path == "/db":
        result = await techempower.db()
    elif path == "/queries":
        result = await techempower.queries(query_count(scope, "queries"))
    elif path == "/updates":
        result = await techempower.updates(query_count(scope, "queries"))
    elif path == "/cached-queries":
        result = await techempower.cached_queries(query_count(scope, "count"))
    elif path == "/fortunes":
        fortunes = await techempower.fortunes()
        if fortunes is None:
            await text(send, 503, b"database unavailable")
        else:
            page = fortunes_page.render(fortunes=fortunes).encode()
            await respond(send, 200, [CT_HTML, (b"content-length", str(len(page)).encode())], page)
        return True
    else:
        return False
    if result is None:
        await text(send, 503, b"database unavailable")
    else:
        await json_ok(send, orjson.dumps(result))
    return True


KNOWN = {"/api/test", "/rest/todo", "/echo", "/users"} | {
    "/json", "/db", "/queries", "/fortunes", "/updates", "/cached-queries"
}


async def app(scope, receive, send):
    if scope["type"] != "http":
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
        return
    path = scope["path"]
    method = scope["method"]
    if method == "GET":
        if path == "/api/test":
            await respond(send, 200, H_TEXT, PLAIN)
            return
        if path == "/rest/todo":
            await json_ok(send, orjson.dumps(TODOS, option=orjson.OPT_UTC_Z))
            return
        if path == "/users":
            users = await db.users()
            if users is None:
                await text(send, 503, b"database unavailable")
            else:
                await json_ok(send, orjson.dumps(users))
            return
        if path.startswith("/delay/"):
            await delay(send, path[len("/delay/"):])
            return
        if await techempower_answer(scope, send, path):
            return
    elif method == "POST" and path == "/echo":
        body = await read_body(scope, receive)
        if body is None:
            # uvicorn discards the unread rest of the body and keeps the connection
            await text(send, 413, b"request body too large")
            return
        try:
            out = orjson.dumps(orjson.loads(body))
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):
            await text(send, 400, b"malformed JSON")
            return
        await json_ok(send, out)
        return
    if path in KNOWN:
        await text(send, 405, b"method not allowed")
    else:
        await text(send, 404, b"not found")
