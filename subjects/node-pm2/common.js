'use strict';
// Shared pieces of this subject: configuration, the todo list, the users query
// (node-postgres pool + named prepared statement), the Caesar cipher of seed 003,
// which waits GET /delay/{ms} grants, the static tree's folder, the upload answer and the
// download bytes.
const path = require('node:path');
const pg = require('pg');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number.parseInt(process.env.PORT || '8080', 10);
const DB_POOL_SIZE = Math.max(1, Number.parseInt(process.env.DB_POOL_SIZE || '10', 10) || 10);
const BODY_LIMIT = 1024 * 1024; // 1 MiB

// TIMESTAMP (without time zone, oid 1114): node-postgres parses it as *local* time by
// default (seed 003's bug). Read the stored wall time as UTC instead, so that
// toISOString() gives it back unshifted: "1956-01-09 00:00:00" -> 1956-01-09T00:00:00.000Z.
pg.types.setTypeParser(1114, (text) => {
  const d = new Date(text.replace(' ', 'T') + 'Z');
  return Number.isNaN(d.getTime()) ? text : d;
});

// --- todo (seed 002): typed in-memory items, serialized on every request ---
class TodoItem {
  constructor(title, createdAt) {
    this.title = title;
    this.createdAt = createdAt; // Date -> RFC 3339 UTC via toJSON()
  }
}
const startedAt = new Date();
const TODOS = [
  'Do some stuff', 'Do more stuff', 'Even more stuff', 'Yihaa',
  'Java is great! Or isn\'t it?', 'Foo Bar', 'Lorem ipsum', 'Dolor sit amet',
].map((t) => new TodoItem(t, startedAt));

// --- delay (HttpArena's slow handler) ---
const DELAY_MAX_MS = 10000;

// The wait that the segment after /delay/ asks for, in whole milliseconds, or null (answered
// 400 at once) when it is not plain decimal digits (Number() would also take '1e3', '0x10' or
// ' 10') or is above DELAY_MAX_MS.
function delayMs(segment) {
  if (typeof segment !== 'string' || !/^[0-9]+$/.test(segment)) return null;
  const ms = Number(segment);
  return ms <= DELAY_MAX_MS ? ms : null;
}

// --- static, upload, download (HttpArena) ---
// The static tree restbench writes. Unset: a folder that does not exist, so that the server
// still starts and every /static/ request is 404.
const STATIC_DIR = process.env.STATIC_DIR || path.join(__dirname, 'static-dir-unset');

// POST /upload's answer: the body's length and its CRC-32 (zlib's) as 8 lowercase hex digits.
function uploadAnswer(length, crc) {
  return `${length} ${(crc >>> 0).toString(16).padStart(8, '0')}`;
}

// GET /download/{n}: n whole bytes 0..DOWNLOAD_MAX where byte i is i mod 256, sliced (no copy)
// from one buffer made at start-up; null (answered 400) when the segment is not plain decimal
// digits or n is above DOWNLOAD_MAX.
const DOWNLOAD_MAX = 10 * 1024 * 1024;
const DOWNLOAD_BYTES = Buffer.alloc(DOWNLOAD_MAX, Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
function downloadBody(segment) {
  if (typeof segment !== 'string' || !/^[0-9]+$/.test(segment)) return null;
  const n = Number(segment);
  return n <= DOWNLOAD_MAX ? DOWNLOAD_BYTES.subarray(0, n) : null;
}

// --- users (seed 003) ---
function caesarCipher(str) {
  let out = '';
  for (let i = 0; i < str.length; i++) {
    let n = str.charCodeAt(i);
    if (n <= 127) {
      n += 14;
      if (n > 127) n -= 26;
    }
    out += String.fromCharCode(n);
  }
  return out;
}

class User {
  constructor(row) {
    this.id = row.id;
    this.username = row.username;
    this.name = row.name;
    this.sex = row.sex;
    this.address = caesarCipher(row.address);
    this.mail = row.mail;
    this.birthdate = row.birthdate instanceof Date ? row.birthdate.toISOString() : row.birthdate;
  }
}

const USERS_QUERY = {
  name: 'select-users', // named: prepared once per connection
  text: 'SELECT id, username, name, sex, address, mail, birthdate FROM "user"',
};

let pool = null;
function createPool() {
  if (!process.env.DATABASE_URL) return null;
  pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: DB_POOL_SIZE,
    connectionTimeoutMillis: 2000, // bounded acquire/connect wait -> 503
    statement_timeout: 2000, // the server cancels a query stuck on a lock -> 503
    application_name: 'restbench',
  });
  // Errors of idle clients (database restarted, connection dropped) must not crash us.
  pool.on('error', () => {});
  return pool;
}

// Resolves to an array of User, rejects when the database is unavailable.
async function getUsers() {
  if (pool === null) throw new Error('no database configured');
  const result = await pool.query(USERS_QUERY);
  const rows = result.rows;
  const users = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) users[i] = new User(rows[i]);
  return users;
}

// The pool createPool made, or null (no DATABASE_URL): tfb.js runs TechEmpower's queries on it.
function getPool() { return pool; }

async function closePool() {
  if (pool !== null) {
    const p = pool;
    pool = null;
    try { await p.end(); } catch (_) { /* ignore */ }
  }
}

module.exports = {
  HOST, PORT, DB_POOL_SIZE, BODY_LIMIT, TODOS, DELAY_MAX_MS, delayMs,
  STATIC_DIR, uploadAnswer, DOWNLOAD_MAX, downloadBody,
  createPool, getPool, getUsers, closePool, caesarCipher,
};
