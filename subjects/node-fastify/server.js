'use strict';
// Fastify (seed 003). One process, or a node:cluster of CLUSTER_WORKERS workers
// (see cluster.js). todo and users declare response schemas, Fastify's recommended way
// to serialize (fast-json-stringify, compiled at start-up, run on every request).
const path = require('node:path');
const zlib = require('node:zlib');
const { setTimeout: sleep } = require('node:timers/promises');
const Fastify = require('fastify');
const fastifyView = require('@fastify/view');
const fastifyStatic = require('@fastify/static');
const fastifyCompress = require('@fastify/compress');
const ejs = require('ejs');
const common = require('./common');
const tfb = require('./tfb');
const { run } = require('./cluster');

const todoResponse = {
  200: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        createdAt: { type: 'string', format: 'date-time' },
      },
      required: ['title', 'createdAt'],
    },
  },
};

const usersResponse = {
  200: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        username: { type: 'string' },
        name: { type: 'string' },
        sex: { type: 'string' },
        address: { type: 'string' },
        mail: { type: 'string' },
        birthdate: { type: 'string' },
      },
      required: ['id', 'username', 'name', 'sex', 'address', 'mail', 'birthdate'],
    },
  },
};

// GET /delay/{ms}: whole milliseconds 0..common.DELAY_MAX_MS in decimal digits, checked by the
// route's params schema (anything else is Fastify's 400 before the handler runs). A pattern on
// the string, not type integer: Ajv's coercion would also take '1e3' or '0x10'.
const delayParams = {
  type: 'object',
  properties: { ms: { type: 'string', pattern: '^0*(?:[0-9]{1,4}|10000)$' } },
  required: ['ms'],
};

// TechEmpower's answers, declared as the other routes are: serialized by fast-json-stringify.
const worldSchema = {
  type: 'object',
  properties: { id: { type: 'integer' }, randomNumber: { type: 'integer' } },
  required: ['id', 'randomNumber'],
};
const messageResponse = {
  200: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};
const worldResponse = { 200: worldSchema };
const worldsResponse = { 200: { type: 'array', items: worldSchema } };

// TechEmpower's six types. Their answers carry a Server header (TechEmpower's verifier
// requires one; Node adds Date); fortunes through @fastify/view with EJS, Fastify's own
// template plugin; a database failure is 503.
function techEmpower(app) {
  app.register(fastifyView, { engine: { ejs }, root: path.join(__dirname, 'views'), production: true });
  const answer = (handler) => async (request, reply) => {
    reply.header('Server', 'fastify');
    try {
      return await handler(request, reply);
    } catch (_) {
      reply.code(503).type('text/plain').send('Service Unavailable');
      return reply;
    }
  };
  app.get('/json', { schema: { response: messageResponse } }, answer(async () => tfb.message()));
  app.get('/db', { schema: { response: worldResponse } }, answer(() => tfb.world()));
  app.get('/queries', { schema: { response: worldsResponse } }, answer((request) => tfb.worlds(tfb.count(request.query.queries))));
  app.get('/fortunes', answer(async (request, reply) => {
    const fortunes = await tfb.fortunes();
    return reply.type(tfb.HTML_TYPE).view('fortunes.ejs', { fortunes });
  }));
  app.get('/updates', { schema: { response: worldsResponse } }, answer((request) => tfb.updates(tfb.count(request.query.queries))));
  app.get('/cached-queries', { schema: { response: worldsResponse } }, answer((request) => tfb.cachedWorlds(tfb.count(request.query.count))));
}

function buildApp() {
  const app = Fastify({
    logger: false,
    bodyLimit: common.BODY_LIMIT, // 413 above 1 MiB (Fastify's default, stated)
    // Fastify disables Node's whole-request timeout by default and recommends a
    // non-zero value when exposed directly; Node's header timeout (60 s) stays.
    requestTimeout: 120000,
  });

  // Only JSON bodies are accepted (Fastify also parses text/plain by default).
  app.removeContentTypeParser('text/plain');

  app.get('/api/test', (request, reply) => {
    reply.type('text/plain').send('Hello, World!');
  });

  // json-gzip: @fastify/compress registered in a scope that holds only this route (the plugin
  // is not encapsulated, so its hooks reach the routes of the scope it is registered in, and
  // no other): it compresses per request when Accept-Encoding allows it (br or gzip), adds
  // Vary: Accept-Encoding, and answers identity otherwise. threshold 0: the ~500-byte document
  // is under its 1 KiB default. Request decompression off (a GET has no body).
  app.register(async (scope) => {
    await scope.register(fastifyCompress, { threshold: 0, globalDecompression: false });
    scope.get('/rest/todo', { schema: { response: todoResponse } }, (request, reply) => {
      reply.send(common.TODOS);
    });
  });

  // static: @fastify/static from STATIC_DIR under /static/, from disk per request
  // (@fastify/send): Content-Type by extension, ETag and Last-Modified, 304 for a matching
  // validator, 403 for a path that climbs out, Fastify's 404 for a missing file.
  app.register(fastifyStatic, { root: common.STATIC_DIR, prefix: '/static/' });

  // Built-in JSON parser (JSON.parse + prototype-poisoning check): malformed or empty
  // -> 400, other content types -> 415. Serialized with JSON.stringify so that any JSON
  // value (also null or a string) goes back as JSON.
  //
  // A declared Content-Length over the limit is answered 413 before the body is read:
  // Fastify's own 413 adds "Connection: close" and closes with the body unread, so a
  // client still sending gets a reset instead of the answer. Here Node drains the body
  // and the connection stays usable. (A chunked body over the limit still gets
  // Fastify's 413 + close.)
  const declaredTooLarge = (request, reply, done) => {
    const length = request.headers['content-length'];
    if (length !== undefined && Number(length) > common.BODY_LIMIT) {
      reply.code(413).type('text/plain').send('Payload Too Large');
      return;
    }
    done();
  };
  app.post('/echo', { onRequest: declaredTooLarge }, (request, reply) => {
    reply.type('application/json').send(JSON.stringify(request.body));
  });

  // upload: in a scope of its own, every content type is read by Fastify's body parser as a
  // Buffer (parseAs 'buffer', bodyLimit 1 MiB -> 413; also chunked); length and CRC-32 from
  // those bytes. A declared length over the limit is 413 before the body is read, as /echo.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => done(null, body));
    scope.post('/upload', { onRequest: declaredTooLarge }, (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0); // no body
      reply.type('text/plain').send(common.uploadAnswer(body.length, zlib.crc32(body)));
    });
  });

  // download: n bytes sliced from common's start-up buffer; a Buffer is sent as
  // application/octet-stream with its Content-Length. Not 0..10 MiB in digits: 400.
  app.get('/download/:n', (request, reply) => {
    const body = common.downloadBody(request.params.n);
    if (body === null) {
      reply.code(400).type('text/plain').send('Bad Request');
      return;
    }
    reply.type('application/octet-stream').send(body);
  });

  app.get('/users', { schema: { response: usersResponse } }, async (request, reply) => {
    let users;
    try {
      users = await common.getUsers();
    } catch (_) {
      reply.code(503).type('text/plain').send('Service Unavailable');
      return reply;
    }
    return users;
  });
  // The wait on node:timers/promises, awaited in the async handler: the request holds a timer,
  // not the event loop.
  app.get('/delay/:ms', { schema: { params: delayParams } }, async (request, reply) => {
    const ms = Number(request.params.ms);
    await sleep(ms);
    reply.type('text/plain');
    return String(ms);
  });
  techEmpower(app);
  // Anything else: Fastify's 404 (also for a wrong method on a known path).
  return app;
}

async function start() {
  common.createPool();
  const app = buildApp();
  await app.listen({ host: common.HOST, port: common.PORT });
  return async () => {
    await app.close();
    await common.closePool();
  };
}

run('node-fastify', start);
