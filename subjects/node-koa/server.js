'use strict';
// Koa + @koa/router + @koa/bodyparser (seed 003). One process, or a node:cluster of
// CLUSTER_WORKERS workers (see cluster.js).
const Koa = require('koa');
const { Router } = require('@koa/router');
const { bodyParser } = require('@koa/bodyparser');
const common = require('./common');
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
