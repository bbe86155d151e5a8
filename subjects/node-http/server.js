'use strict';
// Plain node:http server (seeds 000, 002, 003, 004). One process, or a node:cluster of
// CLUSTER_WORKERS workers (see cluster.js).
const http = require('node:http');
const common = require('./common');
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

function users(res) {
  common.getUsers().then(
    (list) => reply(res, 200, JSON_TYPE, JSON.stringify(list)),
    () => reply(res, 503, TEXT, 'Service Unavailable'),
  );
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
    default:
      notFound(res); // every other request gets an answer
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

run('node-http', start);
