'use strict';
// @hapi/hapi (seed 003). One process, or a node:cluster of CLUSTER_WORKERS workers
// (see cluster.js).
const path = require('node:path');
const zlib = require('node:zlib');
const { setTimeout: sleep } = require('node:timers/promises');
const Hapi = require('@hapi/hapi');
const Inert = require('@hapi/inert');
const Vision = require('@hapi/vision');
const ejs = require('ejs');
const common = require('./common');
const tfb = require('./tfb');
const { run } = require('./cluster');

function routes(server) {
  server.route({
    method: 'GET', // GET routes also answer HEAD
    path: '/api/test',
    handler: (request, h) => h.response('Hello, World!').type('text/plain'),
  });

  // json-gzip: hapi's own compression (gzip, deflate), on for every route: when
  // Accept-Encoding allows it, hapi compresses the answer per request and adds
  // Vary: accept-encoding; identity otherwise. Its minimum size is lowered in start().
  server.route({
    method: 'GET',
    path: '/rest/todo',
    handler: () => common.TODOS, // JSON.stringify'd by hapi on every request
  });

  // static: @hapi/inert's directory handler on STATIC_DIR, from disk per request: one file
  // name after /static/ (no index, no listing), Content-Type by extension, Content-Length,
  // Last-Modified and an ETag ('simple': size and mtime, so the first answer has one too;
  // the default hashes the contents), 304 for a matching validator (hapi), 403/404 for a path
  // out of the tree (inert confines it to the folder), 404 for a missing file.
  server.route({
    method: 'GET',
    path: '/static/{file}',
    handler: {
      directory: { path: common.STATIC_DIR, index: false, listing: false, redirectToSlash: false, etagMethod: 'simple' },
    },
  });

  // upload: hapi's payload, read whole but not parsed (parse: false, output: 'data': a Buffer
  // of the bytes received, any content type, also chunked; over 1 MiB -> 413); length and
  // CRC-32 from those bytes.
  server.route({
    method: 'POST',
    path: '/upload',
    options: { payload: { parse: false, output: 'data', maxBytes: common.BODY_LIMIT } },
    handler: (request, h) => {
      const body = Buffer.isBuffer(request.payload) ? request.payload : Buffer.alloc(0); // no body
      return h.response(common.uploadAnswer(body.length, zlib.crc32(body))).type('text/plain');
    },
  });

  // download: n bytes sliced from common's start-up buffer, a Buffer answer with its
  // Content-Length (0 bytes too: 200, not hapi's default 204 for an empty payload). The
  // parameter through a validation function as /delay/{ms}: not 0..10 MiB in digits throws,
  // which hapi answers 400.
  server.route({
    method: 'GET',
    path: '/download/{n}',
    options: {
      response: { emptyStatusCode: 200 },
      validate: {
        params: (params) => {
          const body = common.downloadBody(params.n);
          if (body === null) throw new Error('not a granted size');
          return { body };
        },
      },
    },
    handler: (request, h) => h.response(request.params.body).type('application/octet-stream'),
  });

  server.route({
    method: 'POST',
    path: '/echo',
    options: {
      // hapi's defaults, stated: JSON parsed (JSON.parse + prototype-poisoning check),
      // malformed -> 400, over 1 MiB -> 413, other content types -> 415.
      payload: { parse: true, output: 'data', maxBytes: common.BODY_LIMIT, allow: 'application/json' },
    },
    handler: (request, h) => {
      if (request.headers['content-length'] === '0') { // an empty body is not JSON
        return h.response('Bad Request').code(400).type('text/plain');
      }
      // Serialized here so that any JSON value (also null or a string) goes back as JSON.
      return h.response(JSON.stringify(request.payload)).type('application/json');
    },
  });

  server.route({
    method: 'GET',
    path: '/users',
    handler: async (request, h) => {
      try {
        return await common.getUsers();
      } catch (_) {
        return h.response('Service Unavailable').code(503).type('text/plain');
      }
    },
  });
  // The wait on node:timers/promises, awaited in the async handler: the request holds a timer,
  // not the event loop. The path parameter goes through a validation function (hapi's own
  // form; joi is not a dependency): a wait not granted throws, which hapi answers 400 at once.
  server.route({
    method: 'GET',
    path: '/delay/{ms}',
    options: {
      validate: {
        params: (params) => {
          const ms = common.delayMs(params.ms);
          if (ms === null) throw new Error('not a granted wait');
          return { ms };
        },
      },
    },
    handler: async (request, h) => {
      const { ms } = request.params;
      await sleep(ms);
      return h.response(String(ms)).type('text/plain');
    },
  });
  techEmpower(server);
  // Anything else: hapi's 404 (also for a wrong method on a known path).
}

// TechEmpower's six types. Their answers carry a Server header (TechEmpower's verifier
// requires one; hapi adds Date); fortunes through h.view of @hapi/vision, hapi's template
// plugin, with EJS (compiled once, cached); a database failure is 503.
function techEmpower(server) {
  server.views({ engines: { ejs }, path: path.join(__dirname, 'views'), isCached: true });
  const get = (routePath, answer) => server.route({
    method: 'GET',
    path: routePath,
    handler: async (request, h) => {
      let response;
      try {
        response = await answer(request, h);
      } catch (_) {
        response = h.response('Service Unavailable').code(503).type('text/plain');
      }
      return response.header('Server', 'hapi');
    },
  });
  get('/json', (request, h) => h.response(tfb.message()));
  get('/db', async (request, h) => h.response(await tfb.world()));
  get('/queries', async (request, h) => h.response(await tfb.worlds(tfb.count(request.query.queries))));
  get('/fortunes', async (request, h) => h.view('fortunes', { fortunes: await tfb.fortunes() }));
  get('/updates', async (request, h) => h.response(await tfb.updates(tfb.count(request.query.queries))));
  get('/cached-queries', async (request, h) => h.response(await tfb.cachedWorlds(tfb.count(request.query.count))));
}

async function start() {
  common.createPool();
  const server = Hapi.server({
    host: common.HOST,
    port: common.PORT,
    debug: false, // no request/error logging
    // Compression's minimum size (default 1 KiB) lowered so that todo's ~500-byte document is
    // compressed when asked; bodies under 100 bytes are not worth it.
    compression: { minBytes: 100 },
  });
  await server.register([Inert, Vision]);
  routes(server);
  await server.start();
  return async () => {
    await server.stop({ timeout: 2000 });
    await common.closePool();
  };
}

run('node-hapi', start);
