"""restbench subject: a bare ASGI application (no framework) served by uvicorn.

The same file serves python-uvicorn (asyncio's loop) and python-uvicorn-uvloop (uvloop): the
loop is chosen by `--loop` in each subject.toml. Keep the two copies identical
(crates/harness/tests/it/subject_copies.rs checks it).

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users, GET /delay/{ms}, and
TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries (tfb.py), and
HttpArena's GET /static/{file}, POST /upload, GET /download/{n}; anything else 404 (405 for a
known path with a wrong method). JSON through orjson, the database through an asyncpg pool
created at start-up (lifespan), one pool per uvicorn worker process; the fortunes page through
Jinja2 with autoescaping. uvicorn adds the Server and Date headers TechEmpower requires to
every answer. uvicorn has no static-file handler nor compression of its own (it is a server, not
a framework): the static files and /rest/todo's gzip are small handlers on the standard library.
"""
import asyncio
import gzip
import mimetypes
import os
import stat
import sys
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path
from urllib.parse import parse_qs

import asyncpg
import jinja2
import orjson

import tfb

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413
DELAY_MAX_MS = 10_000  # GET /delay/{ms} waits at most 10 s; more is answered with 400
DOWNLOAD_MAX = 10 * 1024 * 1024  # GET /download/{n} sends at most 10 MiB; more is a 400
# byte i is i mod 256; each answer is a slice of this buffer, made once per process
DOWNLOAD = bytes(range(256)) * (DOWNLOAD_MAX // 256)
STATIC_DIR = os.environ.get("STATIC_DIR")  # unset: every /static/ path is a 404
GZIP_MIN_SIZE = 100  # /rest/todo's ~500 bytes are compressed (most middlewares skip < 1 KiB)

PLAIN = b"Hello, World!"
H_TEXT = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"13")]
CT_JSON = (b"content-type", b"application/json")
CT_TEXT = (b"content-type", b"text/plain; charset=utf-8")
CT_OCTETS = (b"content-type", b"application/octet-stream")
VARY = (b"vary", b"accept-encoding")


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


def header(scope, name):
    """The first value of request header `name` (lowercase bytes), as str; None if absent."""
    for n, value in scope["headers"]:
        if n == name:
            return value.decode("latin-1")
    return None


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


async def json_negotiated(scope, send, body):
    """A JSON answer gzip-compressed per request when the request's Accept-Encoding allows it
    (what a compression middleware does); Vary tells caches the answer depends on it."""
    if len(body) >= GZIP_MIN_SIZE and accepts_gzip(header(scope, b"accept-encoding")):
        body = gzip.compress(body, compresslevel=6, mtime=0)
        headers = [CT_JSON, (b"content-encoding", b"gzip"), VARY]
    else:
        headers = [CT_JSON, VARY]
    headers.append((b"content-length", str(len(body)).encode()))
    await respond(send, 200, headers, body)


def not_modified(if_none_match, if_modified_since, etag, mtime):
    """RFC 9110 13.1.2/13.1.3: If-None-Match (weak comparison, `*`) decides when present,
    else If-Modified-Since not older than the file's mtime (whole seconds)."""
    if if_none_match is not None:
        tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
        return "*" in tags or etag in tags
    if if_modified_since is not None:
        try:
            since = parsedate_to_datetime(if_modified_since)
        except (TypeError, ValueError, IndexError):
            return False
        if since.tzinfo is None:
            since = since.replace(tzinfo=timezone.utc)
        return int(mtime) <= since.timestamp()
    return False


def static_answer(name, if_none_match, if_modified_since):
    """GET /static/{name} from STATIC_DIR, read from disk per request (run in a worker thread:
    file I/O would block the event loop). Only a plain file directly in the folder: a name
    with a slash (uvicorn has already decoded %2F and %2E), a leading dot (`..`) or a NUL is a
    404. ETag from mtime and size (as nginx and aiohttp make it), Last-Modified, 304 without a
    body when the request's validators match. None: 404."""
    if STATIC_DIR is None or not name or "/" in name or "\\" in name or "\0" in name:
        return None
    if name.startswith("."):
        return None
    try:
        fd = os.open(os.path.join(STATIC_DIR, name), os.O_RDONLY)
    except OSError:
        return None
    with open(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}"'
        validators = [
            (b"etag", etag.encode()),
            (b"last-modified", formatdate(st.st_mtime, usegmt=True).encode()),
        ]
        if not_modified(if_none_match, if_modified_since, etag, st.st_mtime):
            return 304, validators, b""
        body = f.read()
    ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
    headers = [(b"content-type", ctype.encode()), (b"content-length", str(len(body)).encode())]
    return 200, headers + validators, body


async def static(scope, send, name):
    answer = await asyncio.to_thread(
        static_answer,
        name,
        header(scope, b"if-none-match"),
        header(scope, b"if-modified-since"),
    )
    if answer is None:
        await text(send, 404, b"not found")
    else:
        await respond(send, *answer)


async def download(send, n):
    """GET /download/{n}: n bytes, byte i = i mod 256; not a whole number: 404, above
    DOWNLOAD_MAX: 400 (more than 8 digits is above it, whatever its value)."""
    if not (n.isascii() and n.isdigit()):
        await text(send, 404, b"not found")
        return
    size = int(n) if len(n) <= 8 else DOWNLOAD_MAX + 1
    if size > DOWNLOAD_MAX:
        await text(send, 400, b"size above 10485760 bytes")
        return
    await respond(send, 200, [CT_OCTETS, (b"content-length", str(size).encode())], DOWNLOAD[:size])


async def upload(scope, receive, send):
    """POST /upload: the length and CRC-32 of the bytes received, computed chunk by chunk as
    the ASGI receive loop delivers them (Content-Length is only checked against the limit)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                too_large = int(value) > MAX_BODY
            except ValueError:
                too_large = True
            if too_large:
                await text(send, 413, b"request body too large")
                return
    size = 0
    crc = 0
    while True:
        msg = await receive()
        if msg["type"] != "http.request":
            return  # the client left
        chunk = msg.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            await text(send, 413, b"request body too large")
            return
        crc = zlib.crc32(chunk, crc)
        if not msg.get("more_body", False):
            break
    await text(send, 200, f"{size} {crc:08x}".encode())


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


KNOWN = {"/api/test", "/rest/todo", "/echo", "/users", "/upload"} | {
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
            await json_negotiated(scope, send, orjson.dumps(TODOS, option=orjson.OPT_UTC_Z))
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
        if path.startswith("/static/"):
            await static(scope, send, path[len("/static/"):])
            return
        if path.startswith("/download/"):
            await download(send, path[len("/download/"):])
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
    elif method == "POST" and path == "/upload":
        await upload(scope, receive, send)
        return
    if path in KNOWN:
        await text(send, 405, b"method not allowed")
    else:
        await text(send, 404, b"not found")
