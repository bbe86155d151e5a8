"""restbench subject: Flask on gunicorn (never Flask's development server).

Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users, GET /delay/{ms}; anything else
404 (405 for a known path with a wrong method, Flask's own handling). JSON through orjson as in
seed 003's flask-app, the database through a psycopg 3 ConnectionPool created when the worker
process imports this module (gunicorn imports the app in each worker after the fork: one pool
per worker process). Bodies over 1 MiB: Flask's MAX_CONTENT_LENGTH answers 413.
TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries: the database
types in tfb.py, the fortunes page through Flask's render_template (Jinja2, autoescaping on
for .html templates); gunicorn adds the Server and Date headers TechEmpower requires.
HttpArena's GET /static/{file} through Flask's own static route (static_folder: Werkzeug's
send_file from disk, ETag, Last-Modified, 304), /rest/todo compressed per request by
Flask-Compress (br, gzip, ... as Accept-Encoding allows), POST /upload over request.get_data(),
GET /download/{n}.
"""
import logging
import os
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone

import orjson
from flask import Flask, Response, abort, render_template, request
from flask_compress import Compress
from psycopg_pool import ConnectionPool

import tfb

MAX_BODY = 1024 * 1024  # 1 MiB: larger bodies are answered with 413
DOWNLOAD_MAX = 10 * 1024 * 1024  # GET /download/{n} sends at most 10 MiB
# byte i is i mod 256; each answer is a slice of this buffer, made once per worker
DOWNLOAD = bytes(range(256)) * (DOWNLOAD_MAX // 256)

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


# /static/<file> from STATIC_DIR; unset: no static folder, so no static route (404s)
app = Flask(__name__, static_folder=os.environ.get("STATIC_DIR"), static_url_path="/static")
app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
# Flask-Compress on /rest/todo only (the compressed() decorator, not every answer): compressed
# per request, no cache; its default minimum of 500 bytes lowered for the ~500-byte document
app.config["COMPRESS_REGISTER"] = False
app.config["COMPRESS_MIN_SIZE"] = 100
compress = Compress(app)


@app.get("/api/test")
def plaintext():
    return Response(PLAIN, mimetype="text/plain")


@app.get("/rest/todo")
@compress.compressed()
def todo():
    return Response(orjson.dumps(TODOS, option=orjson.OPT_UTC_Z), mimetype="application/json")


def read_body():
    # Werkzeug answers 413 up front when Content-Length exceeds MAX_CONTENT_LENGTH; a body
    # without Content-Length (chunked) is cut at the limit instead, so check for more data.
    body = request.get_data(cache=False)
    if len(body) >= MAX_BODY and request.content_length is None:
        if request.environ["wsgi.input"].read(1):
            abort(413)
    return body


@app.post("/echo")
def echo():
    body = read_body()
    try:
        out = orjson.dumps(orjson.loads(body))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        abort(400)
    return Response(out, mimetype="application/json")


@app.post("/upload")
def upload():
    # the length and CRC-32 of the bytes read from the body, never Content-Length's
    body = read_body()
    return Response(f"{len(body)} {zlib.crc32(body):08x}", mimetype="text/plain")


@app.get("/download/<int(max=10485760):n>")
def download(n):
    # Werkzeug's int converter takes digits up to 10 MiB only: anything else is a 404
    return Response(DOWNLOAD[:n], mimetype="application/octet-stream")


@app.get("/users")
def users():
    result = get_users()
    if result is None:
        return Response(b"database unavailable", status=503, mimetype="text/plain")
    return Response(orjson.dumps(result), mimetype="application/json")


@app.get("/delay/<int(max=10000):ms>")
def delay(ms):
    # Werkzeug's int converter takes digits up to 10000 only: anything else is a 404, at once.
    # WSGI is synchronous: the wait holds this worker thread (the sync worker: its process).
    time.sleep(ms / 1000)
    return Response(str(ms), mimetype="text/plain")


def techempower_json(result):
    if result is None:
        return Response(b"database unavailable", status=503, mimetype="text/plain")
    return Response(orjson.dumps(result), mimetype="application/json")


@app.get("/json")
def message():
    return techempower_json({"message": "Hello, World!"})


@app.get("/db")
def single_query():
    return techempower_json(techempower.db())


@app.get("/queries")
def queries():
    return techempower_json(techempower.queries(tfb.count(request.args.get("queries"))))


@app.get("/updates")
def updates():
    return techempower_json(techempower.updates(tfb.count(request.args.get("queries"))))


@app.get("/cached-queries")
def cached_queries():
    return techempower_json(techempower.cached_queries(tfb.count(request.args.get("count"))))


@app.get("/fortunes")
def fortunes():
    rows = techempower.fortunes()
    if rows is None:
        return Response(b"database unavailable", status=503, mimetype="text/plain")
    return render_template("fortunes.html", fortunes=rows)
