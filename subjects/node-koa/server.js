'use strict';
// Koa + @koa/router + @koa/bodyparser (seed 003). One process, or a node:cluster of
// CLUSTER_WORKERS workers (see cluster.js).
const path = require('node:path');
const zlib = require('node:zlib');
const { setTimeout: sleep } = require('node:timers/promises');
const Koa = require('koa');
const compress = require('koa-compress');
const conditional = require('koa-conditional-get');
const send = require('koa-send');
const views = require('@ladjs/koa-views');
const { Router } = require('@koa/router');
const { bodyParser } = require('@koa/bodyparser');
const common = require('./common');
const tfb = require('./tfb');
const { run } = require('./cluster');

function buildApp() {
  const app = new Koa();
  app.silent = true; // no error logging to stderr (request logging is off anyway)
  const router = new Router();

  router.get('/api/test', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'Hello, World!';
  });

  // json-gzip: koa-compress on this route only: it compresses per request when
  // Accept-Encoding allows it (br or gzip), adds Vary: Accept-Encoding, and answers identity
  // otherwise. threshold 0: the ~500-byte document is under its 1 KiB default.
  router.get('/rest/todo', compress({ threshold: 0 }), (ctx) => {
    ctx.body = common.TODOS; // JSON.stringify'd by Koa (or koa-compress) on every request
  });

  // static: koa-send (the file sender koa-static wraps) from STATIC_DIR, from disk per
  // request: it decodes the name after /static/ and confines it to the root (403 for a path
  // that climbs out, 404 for a missing file), sets Content-Type by extension, Content-Length
  // and Last-Modified. koa-conditional-get, koa-static's companion for conditional GET,
  // answers 304 when Koa's ctx.fresh says the request's validator matches. No precompressed
  // .gz/.br lookups: the tree has none. Its errors are answered by status alone (a 404's
  // message would name the file's path on disk).
  const STATIC_PREFIX = '/static/';
  const staticOptions = { root: common.STATIC_DIR, gzip: false, brotli: false };
  router.get('/static/:file', conditional(), async (ctx) => {
    try {
      await send(ctx, ctx.path.slice(STATIC_PREFIX.length), staticOptions);
    } catch (err) {
      ctx.throw(err.status || 500);
    }
  });

  // upload: Koa parses no bodies, and @koa/bodyparser reads only JSON, form and text, so the
  // body is read off Koa's request stream (ctx.req) chunk by chunk, CRC-32 as it comes; length
  // and CRC from those bytes. Over 1 MiB: 413 (a declared length before reading; the rest is
  // drained so that the connection stays usable).
  router.post('/upload', async (ctx) => {
    const declared = ctx.request.length;
    if (declared !== undefined && declared > common.BODY_LIMIT) ctx.throw(413);
    const read = await new Promise((resolve, reject) => {
      let size = 0;
      let crc = 0;
      let over = false;
      ctx.req.on('data', (chunk) => {
        if (over) return;
        size += chunk.length;
        if (size > common.BODY_LIMIT) { // chunked body over the limit
          over = true;
          resolve(null);
          return;
        }
        crc = zlib.crc32(chunk, crc);
      });
      ctx.req.on('end', () => resolve(over ? null : { size, crc }));
      ctx.req.on('error', reject);
    });
    if (read === null) ctx.throw(413);
    ctx.type = 'text/plain';
    ctx.body = common.uploadAnswer(read.size, read.crc);
  });

  // download: n bytes sliced from common's start-up buffer; a Buffer body is sent as
  // application/octet-stream with its Content-Length. Not 0..10 MiB in digits: 400.
  router.get('/download/:n', (ctx) => {
    const body = common.downloadBody(ctx.params.n);
    if (body === null) ctx.throw(400);
    ctx.body = body;
  });

  // co-body underneath: 1 MiB limit -> 413, malformed JSON -> 400.
  // jsonStrict: false accepts any JSON value, like JSON.parse.
  const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: '1mb', jsonStrict: false });
  router.post('/echo', (ctx, next) => {
    if (!ctx.is('application/json', '+json')) ctx.throw(415);
    return next();
  }, parseJson, (ctx) => {
    if (ctx.request.rawBody === '') ctx.throw(400); // an empty body is not JSON
    // Serialize here (what Koa does for objects) so that any JSON value, including a
    // string or null, goes back as JSON.
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(ctx.request.body);
  });

  router.get('/users', async (ctx) => {
    try {
      ctx.body = await common.getUsers();
    } catch (_) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'Service Unavailable';
    }
  });

  // The wait on node:timers/promises, awaited in the async middleware: the request holds a
  // timer, not the event loop. A wait not granted: Koa's 400 at once.
  router.get('/delay/:ms', async (ctx) => {
    const ms = common.delayMs(ctx.params.ms);
    if (ms === null) ctx.throw(400);
    await sleep(ms);
    ctx.type = 'text/plain';
    ctx.body = String(ms);
  });

  // TechEmpower's six types. Their answers carry a Server header (TechEmpower's verifier
  // requires one; Node adds Date); fortunes through ctx.render of @ladjs/koa-views with EJS
  // (compiled templates cached); a database failure is 503.
  const render = views(path.join(__dirname, 'views'), { map: { ejs: 'ejs' }, extension: 'ejs', options: { cache: true } });
  const techEmpower = (answer) => async (ctx) => {
    ctx.set('Server', 'koa');
    try {
      await answer(ctx);
    } catch (_) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'Service Unavailable';
    }
  };
  router.get('/json', techEmpower((ctx) => { ctx.body = tfb.message(); }));
  router.get('/db', techEmpower(async (ctx) => { ctx.body = await tfb.world(); }));
  router.get('/queries', techEmpower(async (ctx) => { ctx.body = await tfb.worlds(tfb.count(ctx.query.queries)); }));
  router.get('/fortunes', render, techEmpower(async (ctx) => ctx.render('fortunes', { fortunes: await tfb.fortunes() })));
  router.get('/updates', techEmpower(async (ctx) => { ctx.body = await tfb.updates(tfb.count(ctx.query.queries)); }));
  router.get('/cached-queries', techEmpower(async (ctx) => { ctx.body = await tfb.cachedWorlds(tfb.count(ctx.query.count)); }));

  app.use(router.routes());
  app.use(router.allowedMethods()); // 405 for a wrong method on a known path
  return app; // anything else: Koa's 404
}

function start() {
  common.createPool();
  const app = buildApp();
  return new Promise((resolve, reject) => {
    const server = app.listen(common.PORT, common.HOST, () => {
      resolve(() => new Promise((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      }).then(common.closePool));
    });
    server.once('error', reject);
  });
}

run('node-koa', start);
