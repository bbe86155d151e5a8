'use strict';
// Process model. CLUSTER_WORKERS unset/0: one process serves. CLUSTER_WORKERS=N>=1: a
// node:cluster primary forks N workers and serves nothing itself; each worker runs
// start() (its own server and DB pool). SIGTERM/SIGINT stop the primary and its workers.
const cluster = require('node:cluster');

const GRACE_MS = 3000;

function run(name, start) {
  const n = Number.parseInt(process.env.CLUSTER_WORKERS || '0', 10) || 0;
  if (n >= 1 && cluster.isPrimary) runPrimary(name, n);
  else runServer(name, start);
}

function runServer(name, start) {
  let stop = null;
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), GRACE_MS).unref();
    if (stop === null) process.exit(0);
    Promise.resolve().then(stop).then(() => process.exit(0), () => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  Promise.resolve().then(start).then((s) => {
    stop = s;
    if (stopping) onSignal();
    if (!cluster.isWorker) {
      console.error(`${name}: pid ${process.pid} listening on ${process.env.HOST || '127.0.0.1'}:${process.env.PORT || '8080'} (1 process)`);
    }
  }, (err) => {
    console.error(`${name}: start failed: ${err && err.message}`);
    process.exit(1);
  });
}

function runPrimary(name, n) {
  let stopping = false;
  let alive = 0;
  let listening = 0;
  let announced = false;
  let failedStarts = 0;
  const fork = () => {
    const w = cluster.fork();
    w.hasListened = false;
    alive++;
    return w;
  };
  const shutdown = (code) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = code;
    for (const w of Object.values(cluster.workers)) {
      if (w && !w.isDead()) w.process.kill('SIGTERM');
    }
    if (alive === 0) process.exit(code);
    setTimeout(() => {
      for (const w of Object.values(cluster.workers)) {
        if (w && !w.isDead()) w.process.kill('SIGKILL');
      }
      process.exit(code);
    }, GRACE_MS + 1000).unref();
  };
  cluster.on('listening', (w) => {
    if (w.hasListened) return;
    w.hasListened = true;
    if (++listening === n && !announced) {
      announced = true;
      console.error(`${name}: primary ${process.pid}, ${n} workers listening on ${process.env.HOST || '127.0.0.1'}:${process.env.PORT || '8080'}`);
    }
  });
  cluster.on('exit', (w, code, signal) => {
    alive--;
    if (stopping || (code === 0 && !signal)) { // asked to stop (e.g. the group got SIGTERM)
      stopping = true;
      if (alive === 0) process.exit(process.exitCode || 0);
      return;
    }
    if (!w.hasListened && ++failedStarts > n) { // a start-up error, not a one-off crash
      console.error(`${name}: workers keep exiting before listening; stopping`);
      shutdown(1);
      return;
    }
    fork(); // replace a crashed worker
  });
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  for (let i = 0; i < n; i++) fork();
}

module.exports = { run };
