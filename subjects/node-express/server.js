'use strict';
// Express (seeds 002, 003, 004). One process, or a node:cluster of CLUSTER_WORKERS
// workers (see cluster.js).
const path = require('node:path');
const zlib = require('node:zlib');
const { setTimeout: sleep } = require('node:timers/promises');
const express = require('express');
const compression = require('compression');
const common = require('./common');
const tfb = require('./tfb');
const { run } = require('./cluster');

function buildApp() {
  const app = express();
  app.disable('x-powered-by');

  app.get('/api/test', (req, res) => {
    res.type('text/plain').send('Hello, World!');
  });

  // json-gzip: the compression middleware on this route only (the other routes keep their
  // plain path): it compresses per request when Accept-Encoding allows it (br or gzip), adds
  // Vary: Accept-Encoding, and answers identity otherwise. threshold 0: the ~500-byte document
  // is under its 1 KiB default.
  app.get('/rest/todo', compression({ threshold: 0 }), (req, res) => {
    res.json(common.TODOS);
  });

  // static: express.static (serve-static) from STATIC_DIR, from disk per request: Content-Type
  // by extension, ETag and Last-Modified, 304 for a matching validator, 403 for a path that
  // climbs out; a missing file falls through to the 404 below.
  app.use('/static', express.static(common.STATIC_DIR));

  // upload: express.raw reads the whole body into a Buffer (any content type, also chunked;
  // over 1 MiB -> 413 via the error handler); length and CRC-32 from those bytes.
  app.post('/upload', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0); // no body: nothing read
    res.type('text/plain').send(common.uploadAnswer(body.length, zlib.crc32(body)));
  });

  // download: n bytes sliced from common's start-up buffer; res.send of a Buffer is
  // application/octet-stream with its Content-Length. Not 0..10 MiB in digits: 400.
  app.get('/download/:n', (req, res) => {
    const body = common.downloadBody(req.params.n);
    if (body === null) {
      res.status(400).type('text/plain').send('Bad Request');
      return;
    }
    res.type('application/octet-stream').send(body);
  });

  // 1 MiB limit -> 413; malformed JSON -> 400 (both via the error handler below).
  // strict: false accepts any JSON value, like JSON.parse.
  // An empty body is not JSON (body-parser would turn it into {}): 400.
  const rejectEmpty = (req, res, next) => {
    if (req.headers['content-length'] === '0') res.status(400).type('text/plain').send('Bad Request');
    else next();
  };
  app.post('/echo', rejectEmpty, express.json({ limit: '1mb', strict: false }), (req, res) => {
    if (req.body === undefined) { // not a JSON content type: nothing parsed
      res.status(415).type('text/plain').send('Unsupported Media Type');
      return;
    }
    res.json(req.body);
  });

  app.get('/users', async (req, res) => {
    let users;
    try {
      users = await common.getUsers();
    } catch (_) {
      res.status(503).type('text/plain').send('Service Unavailable');
      return;
    }
    res.json(users);
  });

  // The wait on node:timers/promises in an async handler (Express 5 hands a rejection to the
  // error handler): the request holds a timer, not the event loop. A wait not granted: 400 at once.
  app.get('/delay/:ms', async (req, res) => {
    const ms = common.delayMs(req.params.ms);
    if (ms === null) {
      res.status(400).type('text/plain').send('Bad Request');
      return;
    }
    await sleep(ms);
    res.type('text/plain').send(String(ms));
  });

  // TechEmpower's six types. Their answers carry a Server header (TechEmpower's verifier
  // requires one; Node adds Date); fortunes through res.render with EJS, Express's view
  // engine (views cached under NODE_ENV=production); a database failure is 503.
  app.set('views', path.join(__dirname, 'views'));
  app.set('view engine', 'ejs');
  const techEmpower = (answer) => async (req, res) => {
    res.set('Server', 'express');
    try {
      await answer(req, res);
    } catch (_) {
      res.status(503).type('text/plain').send('Service Unavailable');
    }
  };
  app.get('/json', techEmpower((req, res) => res.json(tfb.message())));
  app.get('/db', techEmpower(async (req, res) => res.json(await tfb.world())));
  app.get('/queries', techEmpower(async (req, res) => res.json(await tfb.worlds(tfb.count(req.query.queries)))));
  app.get('/fortunes', techEmpower(async (req, res) => res.render('fortunes', { fortunes: await tfb.fortunes() })));
  app.get('/updates', techEmpower(async (req, res) => res.json(await tfb.updates(tfb.count(req.query.queries)))));
  app.get('/cached-queries', techEmpower(async (req, res) => res.json(await tfb.cachedWorlds(tfb.count(req.query.count)))));

  app.use((req, res) => {
    res.status(404).type('text/plain').send('Not Found');
  });

  // Errors from body-parser carry a 4xx status (400 parse, 413 too large, 415 charset).
  app.use((err, req, res, next) => { // eslint-disable-line no-unused-vars
    const status = Number.isInteger(err.status) && err.status >= 400 && err.status < 600 ? err.status : 500;
    res.status(status).type('text/plain').send(status < 500 ? (err.expose ? err.message : 'Bad Request') : 'Internal Server Error');
  });
  return app;
}

function start() {
  common.createPool();
  const app = buildApp();
  return new Promise((resolve, reject) => {
    const server = app.listen(common.PORT, common.HOST, (err) => {
      if (err) { reject(err); return; }
      resolve(() => new Promise((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      }).then(common.closePool));
    });
    server.once('error', reject);
  });
}

run('node-express', start);
