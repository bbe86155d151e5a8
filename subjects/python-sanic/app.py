"""restbench subject: Sanic on its own server in production mode (no debug, no access
log; uvloop, as Sanic picks it when installed), one or more worker processes.

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users, GET /delay/{ms}; anything else
404 (405 for a known path with a wrong method, Sanic's own handling). JSON through orjson, the
database through an asyncpg pool created at start-up (before_server_start, in each worker
process).
Bodies over 1 MiB: Sanic's REQUEST_MAX_SIZE answers 413. Sanic sends no Date header by
itself: a response middleware adds one (formatted once per second).
TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries: the database
types in tfb.py, the fortunes page through Jinja2 (autoescaping on; Sanic has no engine of its
own), each of these answers with the Server header TechEmpower requires (Sanic sends none).
HttpArena's GET /static/{file} through Sanic's own static route (app.static: the file read from
disk per request, Last-Modified and 304 for If-Modified-Since), /rest/todo gzip-compressed per
request by a handler decorator (Sanic and Sanic Extensions have no compression of their own),
POST /upload over request.body, GET /download/{n}.
"""
import asyncio
import gzip
import logging
import os
import sys
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import formatdate
from functools import wraps
from pathlib import Path

import asyncpg
import jinja2
import orjson
from sanic import Sanic
from sanic.exceptions import BadRequest, ServiceUnavailable
from sanic.response import HTTPResponse, text

import tfb

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413
DELAY_MAX_MS = 10_000  # GET /delay/{ms} waits at most 10 s; more is answered with 400
DOWNLOAD_MAX = 10 * 1024 * 1024  # GET /download/{n} sends at most 10 MiB; more is a 400
# byte i is i mod 256; each answer is a slice of this buffer, made once per worker
DOWNLOAD = bytes(range(256)) * (DOWNLOAD_MAX // 256)
STATIC_DIR = os.environ.get("STATIC_DIR")  # unset: no static route, so 404s
GZIP_MIN_SIZE = 100  # /rest/todo's ~500 bytes are compressed (most middlewares skip < 1 KiB)

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
templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
)
fortunes_page = templates.get_template("fortunes.html")
# TechEmpower requires a Server header; the seeds' answers stay as they were.
SERVER = {"server": "Sanic"}

app = Sanic("restbench", strict_slashes=True)  # "/api/test/" is another path: 404
app.config.REQUEST_MAX_SIZE = MAX_BODY
app.config.ACCESS_LOG = False
app.config.MOTD = False
# Sanic's own start-up lines are INFO messages: keep warnings and errors only
for _name in ("sanic.root", "sanic.server"):
    logging.getLogger(_name).setLevel(logging.WARNING)

_date = [0, ""]


def http_date():
    now = int(time.time())
    if now != _date[0]:
        _date[1] = formatdate(now, usegmt=True)
        _date[0] = now
    return _date[1]


@app.on_response
async def add_date(request, response):
    response.headers["date"] = http_date()


def accepts_gzip(accept_encoding):
    """Whether an Accept-Encoding value allows gzip (RFC 9110 12.5.3): listed, or `*`, with a
    q above 0. No header, `identity` or `gzip;q=0`: the answer stays identity."""
    if not accept_encoding:
        return False
    gzip_q = any_q = None
    for item in accept_encoding.split(","):
        coding, _, params = item.partition(";")
        coding = coding.strip().lower()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if coding in ("gzip", "x-gzip"):
            gzip_q = q
        elif coding == "*":
            any_q = q
    if gzip_q is not None:
        return gzip_q > 0
    return any_q is not None and any_q > 0


def gzip_compressed(handler):
    """Compresses the handler's answer per request when the request's Accept-Encoding allows
    gzip (what a compression middleware does; Sanic computes Content-Length from the body it
    sends), with Vary: Accept-Encoding."""

    @wraps(handler)
    async def compressing(request, *args, **kwargs):
        response = await handler(request, *args, **kwargs)
        body = response.body
        if len(body) >= GZIP_MIN_SIZE and accepts_gzip(request.headers.get("accept-encoding")):
            response.body = gzip.compress(body, compresslevel=6, mtime=0)
            response.headers["content-encoding"] = "gzip"
        response.headers["vary"] = "Accept-Encoding"
        return response

    return compressing


@app.get("/api/test")
async def plaintext(request):
    return HTTPResponse(PLAIN, content_type="text/plain; charset=utf-8")


@app.get("/rest/todo")
@gzip_compressed
async def todo(request):
    return HTTPResponse(
        orjson.dumps(TODOS, option=orjson.OPT_UTC_Z), content_type="application/json"
    )


@app.post("/echo")
async def echo(request):
    try:
        out = orjson.dumps(orjson.loads(request.body))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        raise BadRequest("malformed JSON")
    return HTTPResponse(out, content_type="application/json")


@app.post("/upload")
async def upload(request):
    """The length and CRC-32 of the body Sanic read (chunked or not; over REQUEST_MAX_SIZE
    Sanic answers 413 itself), never Content-Length's."""
    body = request.body
    return text(f"{len(body)} {zlib.crc32(body):08x}")


@app.get("/download/<n:int>")
async def download(request, n: int):
    """n bytes, byte i = i mod 256. Not an integer: Sanic's router answers 404; negative or
    above DOWNLOAD_MAX: 400."""
    if not 0 <= n <= DOWNLOAD_MAX:
        raise BadRequest("size out of 0..10485760 bytes")
    return HTTPResponse(DOWNLOAD[:n], content_type="application/octet-stream")


if STATIC_DIR:
    # files read from disk per request; Sanic refuses paths that leave the folder. With an
    # index, /static/ itself is index.html (as http.FileServer and express.static do) instead
    # of Sanic's IsADirectoryError (a 500) for a folder without a directory view.
    app.static("/static", STATIC_DIR, name="static", index="index.html")


@app.get("/users")
async def users(request):
    result = await db.users()
    if result is None:
        raise ServiceUnavailable("database unavailable")
    return HTTPResponse(orjson.dumps(result), content_type="application/json")


@app.get("/delay/<ms:int>")
async def delay(request, ms: int):
    """Answers {ms} after waiting that long on the event loop's timer (asyncio.sleep suspends
    only this handler). Not an integer: Sanic's router answers 404; negative or above
    DELAY_MAX_MS: 400, at once."""
    if not 0 <= ms <= DELAY_MAX_MS:
        raise BadRequest("wait out of 0..10000 ms")
    await asyncio.sleep(ms / 1000)
    return text(str(ms))


def techempower_json(result):
    if result is None:
        raise ServiceUnavailable("database unavailable")
    return HTTPResponse(orjson.dumps(result), headers=SERVER, content_type="application/json")


@app.get("/json")
async def message(request):
    return techempower_json({"message": "Hello, World!"})


@app.get("/db")
async def single_query(request):
    return techempower_json(await techempower.db())


@app.get("/queries")
async def queries(request):
    return techempower_json(await techempower.queries(tfb.count(request.args.get("queries"))))


@app.get("/updates")
async def updates(request):
    return techempower_json(await techempower.updates(tfb.count(request.args.get("queries"))))


@app.get("/cached-queries")
async def cached_queries(request):
    return techempower_json(
        await techempower.cached_queries(tfb.count(request.args.get("count")))
    )


@app.get("/fortunes")
async def fortunes(request):
    rows = await techempower.fortunes()
    if rows is None:
        raise ServiceUnavailable("database unavailable")
    return HTTPResponse(
        fortunes_page.render(fortunes=rows),
        headers=SERVER,
        content_type="text/html; charset=utf-8",
    )


@app.before_server_start
async def open_db(app):
    await db.open()


@app.after_server_stop
async def close_db(app):
    await db.close()
