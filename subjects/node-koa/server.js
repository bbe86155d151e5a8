'use strict';
// Koa + @koa/router + @koa/bodyparser (seed 003). One process, or a node:cluster of
// CLUSTER_WORKERS workers (see cluster.js).
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const Koa = require('koa');
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

  router.get('/rest/todo', (ctx) => {
    ctx.body = common.TODOS; // JSON.stringify'd by Koa on every request
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
