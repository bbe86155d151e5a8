'use strict';
// TechEmpower's six test types, the framework-independent part: the queries on the pool of
// common.js (each World row its own query, a named statement that node-postgres prepares once
// per connection and reuses), the fortunes list sorted here with the row added per request,
// the updates written in one UNNEST statement before the answer, and CachedWorld read through
// lru-cache (its fetchMethod loads a missing row once). Each server routes /json … and renders
// views/fortunes.ejs with EJS, whose <%= %> escapes HTML, the way its framework serves views.
//
// This file is the same in every Node subject (crates/harness/tests/it/subject_copies.rs
// checks it); change all six.
const { LRUCache } = require('lru-cache');
const common = require('./common');

const WORLD_QUERY = 'SELECT id, randomNumber FROM World WHERE id = $1';
const FORTUNES_QUERY = { name: 'tfb-fortunes', text: 'SELECT id, message FROM Fortune' };
const CACHED_QUERY = 'SELECT id, randomNumber FROM CachedWorld WHERE id = $1';
// One statement for all the rows of a request (TechEmpower allows batched updates, not reads).
const UPDATE_QUERY = 'UPDATE World SET randomNumber = v.r '
  + 'FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v WHERE World.id = v.id';
const ADDED_FORTUNE = 'Additional fortune added at request time.';
const HTML_TYPE = 'text/html; charset=utf-8';

// A World row as TechEmpower answers it (PostgreSQL folds the unquoted column to randomnumber).
class World {
  constructor(id, randomNumber) {
    this.id = id;
    this.randomNumber = randomNumber;
  }
}

class Fortune {
  constructor(id, message) {
    this.id = id;
    this.message = message;
  }
}

// {"message":"Hello, World!"}, a new object per request.
function message() { return { message: 'Hello, World!' }; }

// A query-string value clamped to 1..500: missing, not a number or below 1 is 1.
function count(value) {
  const n = Number.parseInt(Array.isArray(value) ? value[0] : value, 10);
  if (Number.isNaN(n) || n < 1) return 1;
  return Math.min(n, 500);
}

// An id or a number in 1..10,000.
function randomId() { return Math.floor(Math.random() * 10000) + 1; }

function database() {
  const pool = common.getPool();
  if (pool === null) throw new Error('no database configured');
  return pool;
}

// n random World rows on one connection, each its own query of the named prepared statement.
async function worlds(n) {
  const client = await database().connect();
  try {
    const rows = new Array(n);
    for (let i = 0; i < n; i++) {
      const result = await client.query({ name: 'tfb-world', text: WORLD_QUERY, values: [randomId()] });
      const row = result.rows[0];
      rows[i] = new World(row.id, row.randomnumber);
    }
    return rows;
  } finally {
    client.release();
  }
}

async function world() { return (await worlds(1))[0]; }

// Every Fortune row and the one added, sorted by message here (no ORDER BY).
async function fortunes() {
  const result = await database().query(FORTUNES_QUERY);
  const list = result.rows.map((row) => new Fortune(row.id, row.message));
  list.push(new Fortune(0, ADDED_FORTUNE));
  list.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  return list;
}

// n rows read one query each, given new numbers and written in one statement before the
// answer; an id drawn twice keeps its last number, the one answered last.
async function updates(n) {
  const rows = await worlds(n);
  const last = new Map();
  for (const row of rows) {
    row.randomNumber = randomId();
    last.set(row.id, row.randomNumber);
  }
  const ids = [...last.keys()].sort((a, b) => a - b); // one lock order across requests
  const numbers = ids.map((id) => last.get(id));
  await database().query({ name: 'tfb-update', text: UPDATE_QUERY, values: [ids, numbers] });
  return rows;
}

// CachedWorld has 10,000 rows: all of them fit.
const cache = new LRUCache({
  max: 10000,
  fetchMethod: async (id) => {
    const result = await database().query({ name: 'tfb-cached', text: CACHED_QUERY, values: [id] });
    const row = result.rows[0];
    return row === undefined ? undefined : new World(row.id, row.randomnumber);
  },
});

// n random CachedWorld rows through the cache: a miss reads the row once.
async function cachedWorlds(n) {
  const rows = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = await cache.fetch(randomId());
    if (row === undefined) throw new Error('CachedWorld row missing');
    rows[i] = row;
  }
  return rows;
}

module.exports = {
  HTML_TYPE, message, count, world, worlds, fortunes, updates, cachedWorlds,
};
