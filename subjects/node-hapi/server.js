'use strict';
// @hapi/hapi (seed 003). One process, or a node:cluster of CLUSTER_WORKERS workers
// (see cluster.js).
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const Hapi = require('@hapi/hapi');
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

  server.route({
    method: 'GET',
    path: '/rest/todo',
    handler: () => common.TODOS, // JSON.stringify'd by hapi on every request
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
  });
  await server.register(Vision);
  routes(server);
  await server.start();
  return async () => {
    await server.stop({ timeout: 2000 });
    await common.closePool();
  };
}

run('node-hapi', start);
