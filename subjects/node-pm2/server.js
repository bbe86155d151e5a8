'use strict';
// Plain node:http server (seed 003) run under pm2-runtime: pm2 (cluster mode, -i N) forks
// and load-balances the processes; this file is one process.
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const ejs = require('ejs');
const common = require('./common');
const tfb = require('./tfb');

const HELLO = 'Hello, World!';
const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json';

function reply(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function notFound(res) { reply(res, 404, TEXT, 'Not Found'); }

function methodNotAllowed(res, allow) {
  res.setHeader('Allow', allow);
  reply(res, 405, TEXT, 'Method Not Allowed');
}

function echo(req, res) {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > common.BODY_LIMIT) {
    req.resume(); // drain and discard, keep the connection usable
    reply(res, 413, TEXT, 'Payload Too Large');
    return;
  }
  const chunks = [];
  let size = 0;
  let done = false;
  req.on('data', (chunk) => {
    if (done) return;
    size += chunk.length;
    if (size > common.BODY_LIMIT) { // chunked body over the limit
      done = true;
      chunks.length = 0;
      reply(res, 413, TEXT, 'Payload Too Large');
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
    let value;
    try {
      value = JSON.parse(text);
    } catch (_) {
      reply(res, 400, TEXT, 'Bad Request');
      return;
    }
    reply(res, 200, JSON_TYPE, JSON.stringify(value));
  });
  req.on('error', () => { done = true; });
}

// GET /rest/todo. json-gzip: node:http has no compression middleware, so gzip is done per
// request with zlib.gzip (on libuv's thread pool, as Node's zlib docs compress per request)
// when the request's Accept-Encoding allows it; identity otherwise. Every answer says
// Vary: Accept-Encoding, since the bytes depend on it.
function todo(req, res) {
  const body = JSON.stringify(common.TODOS);
  res.setHeader('Vary', 'Accept-Encoding');
  if (!acceptsGzip(req.headers['accept-encoding'])) {
    reply(res, 200, JSON_TYPE, body);
    return;
  }
  zlib.gzip(body, (err, gzipped) => {
    if (err) {
      reply(res, 500, TEXT, 'Internal Server Error');
      return;
    }
    res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip', 'Content-Length': gzipped.length });
    res.end(gzipped);
  });
}

// Whether an Accept-Encoding value accepts gzip: named (or x-gzip) with q > 0, or else `*` with
// q > 0 (RFC 9110 §12.5.3). No header: identity.
function acceptsGzip(header) {
  if (header === undefined) return false;
  let gzip;
  let any;
  for (const part of header.split(',')) {
    const [token, ...params] = part.split(';');
    const name = token.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (name === 'gzip' || name === 'x-gzip') gzip = q;
    else if (name === '*') any = q;
  }
  const q = gzip !== undefined ? gzip : any;
  return q > 0;
}

// POST /upload: the body's length and CRC-32, both from the bytes read off the request stream
// (zlib.crc32 chunk by chunk), never from Content-Length; 413 above 1 MiB, as for /echo.
function upload(req, res) {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > common.BODY_LIMIT) {
    req.resume(); // drain and discard, keep the connection usable
    reply(res, 413, TEXT, 'Payload Too Large');
    return;
  }
  let size = 0;
  let crc = 0;
  let done = false;
  req.on('data', (chunk) => {
    if (done) return;
    size += chunk.length;
    if (size > common.BODY_LIMIT) { // chunked body over the limit
      done = true;
      reply(res, 413, TEXT, 'Payload Too Large');
      return;
    }
    crc = zlib.crc32(chunk, crc);
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    reply(res, 200, TEXT, common.uploadAnswer(size, crc));
  });
  req.on('error', () => { done = true; });
}

// GET /static/{file}: node:http has no static-file handler, so the smallest one from node:fs,
// as Node's docs build it: fs.stat, then fs.createReadStream piped to the response, per
// request (the OS page cache keeps the bytes). Only a file directly in STATIC_DIR: a name
// with a separator, a NUL or a leading dot ('..', hidden files) is 404, so no path leaves the
// tree. Content-Type by extension, Content-Length, an ETag from size and mtime and
// Last-Modified; 304 without a body when the request's validator matches.
const STATIC_PREFIX = '/static/';
const STATIC_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.bin': 'application/octet-stream',
};
function staticFile(req, res, segment) {
  let name;
  try {
    name = decodeURIComponent(segment);
  } catch (_) {
    reply(res, 400, TEXT, 'Bad Request');
    return;
  }
  if (name === '' || name[0] === '.' || /[/\\\0]/.test(name)) {
    notFound(res);
    return;
  }
  const file = path.join(common.STATIC_DIR, name);
  fs.stat(file, (err, stats) => {
    if (err || !stats.isFile()) {
      notFound(res);
      return;
    }
    const etag = `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
    const headers = { ETag: etag, 'Last-Modified': stats.mtime.toUTCString() };
    if (notModified(req.headers, etag, stats.mtimeMs)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    headers['Content-Type'] = STATIC_TYPES[path.extname(name).toLowerCase()] || 'application/octet-stream';
    headers['Content-Length'] = stats.size;
    if (req.method === 'HEAD') {
      res.writeHead(200, headers);
      res.end();
      return;
    }
    const stream = fs.createReadStream(file);
    stream.on('error', () => {
      if (res.headersSent) res.destroy();
      else notFound(res); // gone between stat and open
    });
    stream.once('open', () => {
      res.writeHead(200, headers);
      stream.pipe(res);
    });
    res.once('close', () => stream.destroy()); // finished, or the client went away
  });
}

// RFC 9110 §13.1.2/§13.1.3: If-None-Match (weak comparison, or `*`) decides when present;
// otherwise an If-Modified-Since not older than the file's mtime (whole seconds) matches.
function notModified(headers, etag, mtimeMs) {
  const inm = headers['if-none-match'];
  if (inm !== undefined) {
    return inm.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === etag;
    });
  }
  const ims = headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Math.floor(mtimeMs / 1000) * 1000 <= since;
}

// GET /download/{n}: n bytes (byte i = i mod 256) sliced from common's start-up buffer;
// 400 for anything but 0..10 MiB in decimal digits.
const DOWNLOAD_PREFIX = '/download/';
function download(res, segment) {
  const body = common.downloadBody(segment);
  if (body === null) {
    reply(res, 400, TEXT, 'Bad Request');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
  res.end(body);
}

function users(res) {
  common.getUsers().then(
    (list) => reply(res, 200, JSON_TYPE, JSON.stringify(list)),
    () => reply(res, 503, TEXT, 'Service Unavailable'),
  );
}

// TechEmpower's answers carry a Server header (its verifier requires one; node adds Date).
const SERVER = 'node';
// The fortunes view compiled once; EJS's <%= %> escapes HTML.
const fortunesView = ejs.compile(
  fs.readFileSync(path.join(__dirname, 'views', 'fortunes.ejs'), 'utf8'),
  { filename: 'fortunes.ejs' },
);

function tfbReply(res, type, body) {
  res.writeHead(200, { Server: SERVER, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// Runs one TechEmpower query and answers its result as JSON or the rendered page; any
// database failure is 503.
function techEmpower(res, query, render) {
  query().then(
    (value) => (render ? tfbReply(res, tfb.HTML_TYPE, render(value)) : tfbReply(res, JSON_TYPE, JSON.stringify(value))),
    () => reply(res, 503, TEXT, 'Service Unavailable'),
  );
}

// GET /delay/{ms}: the answer goes out from a node:timers callback ms later, so a waiting
// request holds only its timer and socket, never the event loop; a wait it does not grant is
// 400 at once.
const DELAY_PREFIX = '/delay/';
function delay(res, segment) {
  const ms = common.delayMs(segment);
  if (ms === null) {
    reply(res, 400, TEXT, 'Bad Request');
    return;
  }
  setTimeout(() => reply(res, 200, TEXT, String(ms)), ms);
}

// The value of `name` in the query string, or null.
function queryParam(url, q, name) {
  return q === -1 ? null : new URLSearchParams(url.slice(q + 1)).get(name);
}

function handle(req, res) {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const m = req.method;
  switch (path) {
    case '/api/test':
      if (m === 'GET' || m === 'HEAD') reply(res, 200, TEXT, HELLO);
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/rest/todo':
      if (m === 'GET' || m === 'HEAD') todo(req, res);
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/upload':
      if (m === 'POST') upload(req, res);
      else methodNotAllowed(res, 'POST');
      return;
    case '/echo':
      if (m === 'POST') echo(req, res);
      else methodNotAllowed(res, 'POST');
      return;
    case '/users':
      if (m === 'GET' || m === 'HEAD') users(res);
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/json':
      if (m === 'GET' || m === 'HEAD') tfbReply(res, JSON_TYPE, JSON.stringify(tfb.message()));
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/db':
      if (m === 'GET' || m === 'HEAD') techEmpower(res, tfb.world);
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/queries':
      if (m === 'GET' || m === 'HEAD') techEmpower(res, () => tfb.worlds(tfb.count(queryParam(url, q, 'queries'))));
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/fortunes':
      if (m === 'GET' || m === 'HEAD') techEmpower(res, tfb.fortunes, (fortunes) => fortunesView({ fortunes }));
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/updates':
      if (m === 'GET' || m === 'HEAD') techEmpower(res, () => tfb.updates(tfb.count(queryParam(url, q, 'queries'))));
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    case '/cached-queries':
      if (m === 'GET' || m === 'HEAD') techEmpower(res, () => tfb.cachedWorlds(tfb.count(queryParam(url, q, 'count'))));
      else methodNotAllowed(res, 'GET, HEAD');
      return;
    default:
      if (path.startsWith(DELAY_PREFIX)) {
        if (m === 'GET' || m === 'HEAD') delay(res, path.slice(DELAY_PREFIX.length));
        else methodNotAllowed(res, 'GET, HEAD');
      } else if (path.startsWith(STATIC_PREFIX)) {
        if (m === 'GET' || m === 'HEAD') staticFile(req, res, path.slice(STATIC_PREFIX.length));
        else methodNotAllowed(res, 'GET, HEAD');
      } else if (path.startsWith(DOWNLOAD_PREFIX)) {
        if (m === 'GET' || m === 'HEAD') download(res, path.slice(DOWNLOAD_PREFIX.length));
        else methodNotAllowed(res, 'GET, HEAD');
      } else {
        notFound(res); // every other request gets an answer
      }
  }
}

function start() {
  common.createPool();
  // Node 20 defaults, stated: 16 KiB header limit, 60 s header-read timeout,
  // 300 s whole-request timeout, 5 s keep-alive idle timeout.
  const server = http.createServer({
    maxHeaderSize: 16384,
    headersTimeout: 60000,
    requestTimeout: 300000,
    keepAliveTimeout: 5000,
  }, handle);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: common.HOST, port: common.PORT }, () => {
      resolve(() => new Promise((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      }).then(common.closePool));
    });
  });
}

// Graceful stop: pm2 sends SIGINT (then SIGKILL after its kill_timeout); SIGTERM too.
let stop = null;
let stopping = false;
function onSignal() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 3000).unref();
  if (stop === null) process.exit(0);
  stop().then(() => process.exit(0), () => process.exit(0));
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

start().then((s) => {
  stop = s;
}, (err) => {
  console.error(`node-pm2: start failed: ${err && err.message}`);
  process.exit(1);
});
