"""restbench subject: a bare WSGI application (no framework) served by gunicorn.

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users, GET /delay/{ms}; anything
else 404 (405 for a known path with a wrong method). JSON through orjson, the database
through a psycopg 3 ConnectionPool created when the worker process imports this module
(gunicorn imports the app in each worker after the fork: one pool per worker process).
TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries: the database
types in tfb.py, the fortunes page through Jinja2 with autoescaping; gunicorn adds the Server
and Date headers TechEmpower requires to every answer.
HttpArena's GET /static/{file}, POST /upload, GET /download/{n}. gunicorn is a server, not a
framework: it has no static-file handler nor compression of its own, so the static files are a
small handler on the standard library that hands the open file to gunicorn's
wsgi.file_wrapper (PEP 3333; gunicorn sends it with sendfile), and /rest/todo is gzip-compressed
per request when Accept-Encoding allows it.
"""
import gzip
import logging
import mimetypes
import os
import stat
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path
from urllib.parse import parse_qs

import jinja2
import orjson
from psycopg_pool import ConnectionPool

import tfb

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413
DELAY_MAX_MS = 10_000  # GET /delay/{ms} waits at most 10 s; more is answered with 400
DOWNLOAD_MAX = 10 * 1024 * 1024  # GET /download/{n} sends at most 10 MiB; more is a 400
# byte i is i mod 256; each answer is a slice of this buffer, made once per worker
DOWNLOAD = bytes(range(256)) * (DOWNLOAD_MAX // 256)
STATIC_DIR = os.environ.get("STATIC_DIR")  # unset: every /static/ path is a 404
GZIP_MIN_SIZE = 100  # /rest/todo's ~500 bytes are compressed (most middlewares skip < 1 KiB)

PLAIN = b"Hello, World!"
H_TEXT = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "13")]


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

# The pool logs every failed connection attempt as a warning: keep stderr quiet when the
# database is down (the 503 answers say it).
logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)


def make_pool():
    """min_size = max_size = DB_POOL_SIZE, opened without waiting: if the database is down
    the pool keeps retrying in the background (reconnect_timeout=5 s per attempt, after which
    the next request starts a new attempt), getconn gives up after 2 s (-> 503)."""
    dsn = os.environ.get("DATABASE_URL")
    if not dsn:
        return None
    size = int(os.environ.get("DB_POOL_SIZE") or "10")
    return ConnectionPool(
        dsn,
        min_size=size,
        max_size=size,
        timeout=2,
        reconnect_timeout=5,
        # autocommit: no transaction (and no rollback on return) around the SELECT;
        # prepare_threshold=0: the statement is prepared on its first use per connection.
        # options: the server cancels a query stuck on a lock after 2 s (-> 503).
        kwargs={
            "autocommit": True,
            "prepare_threshold": 0,
            "connect_timeout": 2,
            "options": "-c statement_timeout=2000",
        },
        open=True,
        name="users",
    )


pool = make_pool()
techempower = tfb.TechEmpower(pool)
templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
)
fortunes_page = templates.get_template("fortunes.html")


def get_users():
    if pool is None:
        return None
    try:
        with pool.connection() as conn:
            rows = conn.execute(QUERY).fetchall()
    except Exception:
        return None
    return [
        User(r[0], r[1], r[2], r[3], r[4].translate(CIPHER), r[5], r[6].isoformat())
        for r in rows
    ]


def read_body(environ):
    """Returns the request body, or None when it exceeds MAX_BODY."""
    cl = environ.get("CONTENT_LENGTH")
    if cl:
        try:
            if int(cl) > MAX_BODY:
                return None
        except ValueError:
            return None
    # gunicorn's wsgi.input handles both Content-Length and chunked bodies
    body = environ["wsgi.input"].read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        return None
    return body


def text(start_response, status, body):
    start_response(
        status,
        [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))],
    )
    return [body]


def json_ok(start_response, body):
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    )
    return [body]


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


def json_negotiated(environ, start_response, body):
    """A JSON answer gzip-compressed per request when the request's Accept-Encoding allows it
    (what a compression middleware does); Vary tells caches the answer depends on it."""
    headers = [("Content-Type", "application/json"), ("Vary", "Accept-Encoding")]
    if len(body) >= GZIP_MIN_SIZE and accepts_gzip(environ.get("HTTP_ACCEPT_ENCODING")):
        body = gzip.compress(body, compresslevel=6, mtime=0)
        headers.append(("Content-Encoding", "gzip"))
    headers.append(("Content-Length", str(len(body))))
    start_response("200 OK", headers)
    return [body]


def not_modified(environ, etag, mtime):
    """RFC 9110 13.1.2/13.1.3: If-None-Match (weak comparison, `*`) decides when present,
    else If-Modified-Since not older than the file's mtime (whole seconds)."""
    if_none_match = environ.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None:
        tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
        return "*" in tags or etag in tags
    if_modified_since = environ.get("HTTP_IF_MODIFIED_SINCE")
    if if_modified_since is not None:
        try:
            since = parsedate_to_datetime(if_modified_since)
        except (TypeError, ValueError, IndexError):
            return False
        if since.tzinfo is None:
            since = since.replace(tzinfo=timezone.utc)
        return int(mtime) <= since.timestamp()
    return False


def static(environ, start_response, name):
    """GET /static/{name} from STATIC_DIR, from disk per request. Only a plain file directly in
    the folder: a name with a slash (gunicorn has already decoded %2F and %2E), a leading dot
    (`..`) or a NUL is a 404. ETag from mtime and size (as nginx and aiohttp make it),
    Last-Modified, 304 without a body when the request's validators match; the body is the
    open file, which gunicorn's wsgi.file_wrapper sends with sendfile."""
    if STATIC_DIR is None or not name or "/" in name or "\\" in name or "\0" in name:
        return text(start_response, "404 Not Found", b"not found")
    if name.startswith("."):
        return text(start_response, "404 Not Found", b"not found")
    try:
        f = open(os.path.join(STATIC_DIR, name), "rb")
    except OSError:
        return text(start_response, "404 Not Found", b"not found")
    try:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            f.close()
            return text(start_response, "404 Not Found", b"not found")
        etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}"'
        validators = [("ETag", etag), ("Last-Modified", formatdate(st.st_mtime, usegmt=True))]
        if not_modified(environ, etag, st.st_mtime):
            f.close()
            start_response("304 Not Modified", validators)
            return []
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        start_response(
            "200 OK",
            [("Content-Type", ctype), ("Content-Length", str(st.st_size))] + validators,
        )
    except BaseException:
        f.close()
        raise
    wrapper = environ.get("wsgi.file_wrapper")
    if wrapper is not None:
        return wrapper(f, 64 * 1024)  # closes the file when gunicorn is done with it
    return _read_and_close(f)


def _read_and_close(f):
    with f:
        while chunk := f.read(64 * 1024):
            yield chunk


def upload(environ, start_response):
    """POST /upload: the length and CRC-32 of the bytes read from wsgi.input (gunicorn
    de-chunks a chunked body), computed chunk by chunk; Content-Length is only checked
    against the limit."""
    cl = environ.get("CONTENT_LENGTH")
    if cl:
        try:
            too_large = int(cl) > MAX_BODY
        except ValueError:
            too_large = True
        if too_large:
            return text(start_response, "413 Request Entity Too Large", b"request body too large")
    stream = environ["wsgi.input"]
    size = 0
    crc = 0
    while chunk := stream.read(64 * 1024):
        size += len(chunk)
        if size > MAX_BODY:
            return text(start_response, "413 Request Entity Too Large", b"request body too large")
        crc = zlib.crc32(chunk, crc)
    return text(start_response, "200 OK", f"{size} {crc:08x}".encode())


def download(start_response, n):
    """GET /download/{n}: n bytes, byte i = i mod 256; not a whole number: 404, above
    DOWNLOAD_MAX: 400 (more than 8 digits is above it, whatever its value)."""
    if not (n.isascii() and n.isdigit()):
        return text(start_response, "404 Not Found", b"not found")
    size = int(n) if len(n) <= 8 else DOWNLOAD_MAX + 1
    if size > DOWNLOAD_MAX:
        return text(start_response, "400 Bad Request", b"size above 10485760 bytes")
    start_response(
        "200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(size))]
    )
    return [DOWNLOAD[:size]]


def delay(start_response, ms):
    """GET /delay/{ms}: answers `ms` after sleeping that long in this worker's thread (WSGI is
    synchronous: the sync worker serves nothing else meanwhile); not a whole number: 404, above
    DELAY_MAX_MS: 400, both at once. More than 5 digits is above the limit, whatever its value,
    so that no long string reaches int()."""
    if not (ms.isascii() and ms.isdigit()):
        return text(start_response, "404 Not Found", b"not found")
    wait = int(ms) if len(ms) <= 5 else DELAY_MAX_MS + 1
    if wait > DELAY_MAX_MS:
        return text(start_response, "400 Bad Request", b"wait above 10000 ms")
    time.sleep(wait / 1000)
    return text(start_response, "200 OK", str(wait).encode())


def query_count(environ, name):
    values = parse_qs(environ.get("QUERY_STRING", "")).get(name)
    return tfb.count(values[0] if values else None)


def techempower_answer(environ, start_response, path):
    """Answers TechEmpower's types; None when `path` is not one of them."""
    if path == "/json":
        return json_ok(start_response, orjson.dumps({"message": "Hello, World!"}))
    if path == "/db":
        result = techempower.db()
    elif path == "/queries":
        result = techempower.queries(query_count(environ, "queries"))
    elif path == "/updates":
        result = techempower.updates(query_count(environ, "queries"))
    elif path == "/cached-queries":
        result = techempower.cached_queries(query_count(environ, "count"))
    elif path == "/fortunes":
        fortunes = techempower.fortunes()
        if fortunes is None:
            return text(start_response, "503 Service Unavailable", b"database unavailable")
        page = fortunes_page.render(fortunes=fortunes).encode()
        start_response(
            "200 OK",
            [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(page)))],
        )
        return [page]
    else:
        return None
    if result is None:
        return text(start_response, "503 Service Unavailable", b"database unavailable")
    return json_ok(start_response, orjson.dumps(result))


KNOWN = {"/api/test", "/rest/todo", "/echo", "/users", "/upload"} | {
    "/json", "/db", "/queries", "/fortunes", "/updates", "/cached-queries"
}


def app(environ, start_response):
    path = environ["PATH_INFO"]
    method = environ["REQUEST_METHOD"]
    if method == "GET":
        if path == "/api/test":
            start_response("200 OK", H_TEXT)
            return [PLAIN]
        if path == "/rest/todo":
            todos = orjson.dumps(TODOS, option=orjson.OPT_UTC_Z)
            return json_negotiated(environ, start_response, todos)
        if path == "/users":
            users = get_users()
            if users is None:
                return text(start_response, "503 Service Unavailable", b"database unavailable")
            return json_ok(start_response, orjson.dumps(users))
        if path.startswith("/delay/"):
            return delay(start_response, path[len("/delay/"):])
        if path.startswith("/static/"):
            return static(environ, start_response, path[len("/static/"):])
        if path.startswith("/download/"):
            return download(start_response, path[len("/download/"):])
        answer = techempower_answer(environ, start_response, path)
        if answer is not None:
            return answer
    elif method == "POST" and path == "/echo":
        body = read_body(environ)
        if body is None:
            return text(start_response, "413 Request Entity Too Large", b"request body too large")
        try:
            out = orjson.dumps(orjson.loads(body))
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):
            return text(start_response, "400 Bad Request", b"malformed JSON")
        return json_ok(start_response, out)
    elif method == "POST" and path == "/upload":
        return upload(environ, start_response)
    if path in KNOWN:
        return text(start_response, "405 Method Not Allowed", b"method not allowed")
    return text(start_response, "404 Not Found", b"not found")
