'use strict';
// Plain node:http server (seed 003) run under pm2-runtime: pm2 (cluster mode, -i N) forks
// and load-balances the processes; this file is one process.
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
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
      if (m === 'GET' || m === 'HEAD') reply(res, 200, JSON_TYPE, JSON.stringify(common.TODOS));
      else methodNotAllowed(res, 'GET, HEAD');
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
