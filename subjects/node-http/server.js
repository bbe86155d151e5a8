'use strict';
// Plain node:http server (seeds 000, 002, 003, 004). One process, or a node:cluster of
// CLUSTER_WORKERS workers (see cluster.js). HTTP/1.1 and h2c (HTTP/2 with prior knowledge)
// on one port: see start().
const http = require('node:http');
const http2 = require('node:http2');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const ejs = require('ejs');
const common = require('./common');
const tfb = require('./tfb');
const { run } = require('./cluster');

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

// The connection preface every HTTP/2 client with prior knowledge sends first (RFC 9113 §3.4).
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HEADERS_TIMEOUT_MS = 60000;

// Node serves cleartext HTTP/2 only from its own http2.createServer, which speaks nothing else
// (allowHTTP1 is for TLS servers, where ALPN chooses). So one net.Server accepts, reads the
// first bytes of each connection once, puts them back (socket.unshift) and hands the socket to
// the http2 server when they are the preface, else to the http server: both are
// never-listening servers fed by 'connection', the way Node documents for sockets accepted
// elsewhere. Requests then run as before: the peek costs once per connection, not per request.
// Until then the socket is ours: a reset is dropped, a client that closes or stays silent
// (as long as the http server's header timeout) is closed.
function dispatch(socket, h1, h2) {
  let seen = null;
  const drop = () => socket.destroy();
  const onData = (chunk) => {
    seen = seen === null ? chunk : Buffer.concat([seen, chunk]);
    const n = Math.min(seen.length, PREFACE.length);
    const h2c = seen.compare(PREFACE, 0, n, 0, n) === 0;
    if (h2c && seen.length < PREFACE.length) return; // a preface cut short: wait for the rest
    socket.removeListener('data', onData);
    socket.removeListener('error', drop);
    socket.removeListener('end', drop);
    socket.removeListener('timeout', drop);
    socket.setTimeout(0);
    socket.pause();
    socket.unshift(seen);
    if (h2c) {
      // The http2 session reads what the socket holds itself (socket.read()), then the handle.
      h2.emit('connection', socket);
    } else {
      h1.emit('connection', socket);
      socket.resume(); // the parser gets the bytes put back, then reads the handle itself
    }
  };
  socket.on('error', drop);
  socket.on('end', drop);
  socket.on('timeout', drop);
  socket.setTimeout(HEADERS_TIMEOUT_MS);
  socket.on('data', onData);
}

function start() {
  common.createPool();
  // Node 20 defaults, stated: 16 KiB header limit, 60 s header-read timeout,
  // 300 s whole-request timeout, 5 s keep-alive idle timeout.
  const h1 = http.createServer({
    maxHeaderSize: 16384,
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: 300000,
    keepAliveTimeout: 5000,
  }, handle);
  // The same handler through http2's compatibility API (req.url, res.writeHead, …); the
  // header limit as for HTTP/1.1, every other setting Node's default.
  const h2 = http2.createServer({ settings: { maxHeaderListSize: 16384 } }, handle);
  const sessions = new Set();
  h2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // As http.createServer's own listener: Nagle off, half-open sockets allowed (the http server
  // ends them itself).
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => dispatch(socket, h1, h2));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: common.HOST, port: common.PORT }, () => {
      // The http server starts its header and request timers on 'listening'; it never
      // listens itself, so it is told when the real listener does.
      h1.emit('listening');
      resolve(() => new Promise((done) => {
        server.close(() => done());
        h1.closeIdleConnections();
        for (const session of sessions) session.close(); // GOAWAY, after the streams in flight
      }).then(common.closePool));
    });
  });
}

run('node-http', start);
