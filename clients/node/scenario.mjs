// The client matrix's app scenario (issue 11) for the two Node clients, node-redis and ioredis.
// ClientMatrixTest runs it against a real redis-server and against Cajon and compares the output.
//
//   node scenario.mjs --client node-redis|ioredis --host H --port P [--protocol default|2|3]
//                     [--prefix P] [--modules DIR]
//
// Prints one JSON line per step ({"step","ok","observed"} or {"step","ok":false,"error"}) and a
// last {"summary"} line; exits 1 if any expectation failed, 2 if the client could not be loaded.
// "observed" holds what the client returned, normalised to JSON, so that the two servers' runs can
// be compared line by line. It must not depend on the server (no ids, no addresses, no exact TTL).
//
// The modules come from --modules, else $CAJON_NODE_MODULES, else ./node_modules beside this file
// (bin/install-test-clients puts them there).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = parseArgs(process.argv.slice(2));
const here = path.dirname(fileURLToPath(import.meta.url));
const modules = args.modules || process.env.CAJON_NODE_MODULES || path.join(here, 'node_modules');
const require = createRequire(path.join(path.resolve(modules), 'noop.js'));
const clientName = args.client;
const protocol = args.protocol || 'default';
const prefix = args.prefix || `matrix:${clientName}:${protocol}:`;
const SCAN_KEYS = 300;
const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const NOT_INTEGER = 'ERR value is not an integer or out of range';

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      console.error(`bad argument ${argv[i]}`);
      process.exit(64);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

let lib;
try {
  lib = clientName === 'node-redis' ? require('redis') : clientName === 'ioredis' ? require('ioredis') : null;
  if (lib === null) {
    console.error(`unknown --client ${clientName}`);
    process.exit(64);
  }
} catch (e) {
  console.log(JSON.stringify({ missing: `${clientName} is not installed in ${modules}: ${e.code || e.message}` }));
  process.exit(2);
}
const version = require(clientName === 'node-redis' ? 'redis/package.json' : 'ioredis/package.json').version;

/** Turns a reply into plain JSON: Buffers as hex, errors as {error}, Maps as objects. */
function norm(v) {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return { hex: v.toString('hex') };
  if (v instanceof Error) return { error: v.message };
  if (Array.isArray(v)) return v.map(norm);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), norm(x)]));
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}

/** HGETALL's reply (an object, or a Map in RESP3) as an object with its fields sorted. */
function sortedFields(h) {
  const o = h instanceof Map ? Object.fromEntries([...h].map(([f, v]) => [String(f), v])) : h;
  return Object.fromEntries(Object.keys(o).sort().map((f) => [f, String(o[f])]));
}

function expectEqual(what, actual, expected) {
  const a = JSON.stringify(norm(actual));
  const e = JSON.stringify(norm(expected));
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

async function expectError(what, promise, message) {
  try {
    const r = await promise;
    throw new Error(`${what}: expected the error "${message}", got the reply ${JSON.stringify(norm(r))}`);
  } catch (e) {
    if (e.message.startsWith(`${what}: expected`)) throw e;
    if (e.message !== message) throw new Error(`${what}: expected the error "${message}", got "${e.message}"`);
    return { error: e.message };
  }
}

/**
 * One adapter per client: each method is one app-level operation, written the way that client's
 * own documentation writes it (node-redis: multi().exec(), execAsPipeline(), WatchError; ioredis:
 * pipeline().exec() of [err, reply] pairs, exec() giving null when a watched key changed).
 */
function nodeRedisAdapter() {
  const { createClient, RESP_TYPES } = lib;
  const options = {
    socket: { host: args.host, port: Number(args.port), connectTimeout: 5000, reconnectStrategy: false },
  };
  if (protocol !== 'default') options.RESP = Number(protocol);
  const open = async () => {
    const c = createClient(options);
    c.on('error', () => {}); // a failed connect rejects connect() below; don't crash on the event
    await c.connect();
    return c;
  };
  return {
    open,
    close: (c) => c.destroy(),
    clientInfo: (c) => c.sendCommand(['CLIENT', 'INFO']),
    del: (c, keys) => c.del(keys),
    set: (c, k, v) => c.set(k, v),
    setEx: (c, k, v, s) => c.set(k, v, { expiration: { type: 'EX', value: s } }),
    get: (c, k) => c.get(k),
    getBuffer: (c, k) => c.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }).get(k),
    strlen: (c, k) => c.strLen(k),
    ttl: (c, k) => c.ttl(k),
    incr: (c, k) => c.incr(k),
    pipeline: (c, p) => c.multi().set(p, '1').incr(p).incrBy(p, 5).get(p).execAsPipeline(),
    setMany: (c, keys) => {
      const m = c.multi();
      for (const k of keys) m.set(k, 'x');
      return m.execAsPipeline();
    },
    transaction: (c, t) => c.multi().set(t, '1').incr(t).get(t).exec(),
    execError: async (c, k) => {
      try {
        return await c.multi().set(k, 'abc').incr(k).exec();
      } catch (e) {
        if (e instanceof lib.MultiErrorReply) return e.replies; // the per-command replies, errors inside
        throw e;
      }
    },
    watch: (c, k) => c.watch(k),
    // the transaction after a WATCH; returns null when the server aborted it
    watchedSet: async (c, k, v) => {
      try {
        return await c.multi().set(k, v).exec();
      } catch (e) {
        if (e instanceof lib.WatchError) return null;
        throw e;
      }
    },
    types: async (c, p) => ({
      hset: await c.hSet(`${p}h`, { a: '1', b: '2' }),
      hgetall: sortedFields(await c.hGetAll(`${p}h`)),
      rpush: await c.rPush(`${p}l`, ['x', 'y', 'z']),
      lrange: await c.lRange(`${p}l`, 0, -1),
      sadd: await c.sAdd(`${p}s`, ['m', 'n']),
      smembers: [...await c.sMembers(`${p}s`)].map(String).sort(),
      zadd: await c.zAdd(`${p}z`, [{ score: 1.5, value: 'a' }, { score: 2, value: 'b' }]),
      zrange: (await c.zRangeWithScores(`${p}z`, 0, -1)).map((x) => [String(x.value), Number(x.score)]),
      zscore: Number(await c.zScore(`${p}z`, 'a')),
    }),
    scan: async (c, match, count) => {
      const seen = new Set();
      let cursor = '0';
      for (let round = 0; round < 10_000; round++) {
        const r = await c.scan(cursor, { MATCH: match, COUNT: count });
        r.keys.forEach((k) => seen.add(k));
        cursor = String(r.cursor);
        if (cursor === '0') return seen;
      }
      throw new Error('SCAN did not come back to cursor 0 within 10000 calls');
    },
  };
}

function ioredisAdapter() {
  const Redis = lib.default || lib;
  const options = {
    host: args.host, port: Number(args.port), lazyConnect: true, connectTimeout: 5000,
    maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false,
  };
  if (protocol !== 'default') options.protocol = Number(protocol);
  const pairs = (rows) => rows.map(([err, reply]) => (err ? err : reply));
  return {
    open: async () => {
      const c = new Redis(options);
      c.on('error', () => {});
      await c.connect();
      return c;
    },
    close: (c) => c.disconnect(),
    clientInfo: (c) => c.call('CLIENT', 'INFO'),
    del: (c, keys) => c.del(...keys),
    set: (c, k, v) => c.set(k, v),
    setEx: (c, k, v, s) => c.set(k, v, 'EX', s),
    get: (c, k) => c.get(k),
    getBuffer: (c, k) => c.getBuffer(k),
    strlen: (c, k) => c.strlen(k),
    ttl: (c, k) => c.ttl(k),
    incr: (c, k) => c.incr(k),
    types: async (c, p) => {
      const hset = await c.hset(`${p}h`, 'a', '1', 'b', '2');
      const hgetall = sortedFields(await c.hgetall(`${p}h`));
      const rpush = await c.rpush(`${p}l`, 'x', 'y', 'z');
      const lrange = await c.lrange(`${p}l`, 0, -1);
      const sadd = await c.sadd(`${p}s`, 'm', 'n');
      const smembers = [...await c.smembers(`${p}s`)].map(String).sort();
      const zadd = await c.zadd(`${p}z`, 1.5, 'a', 2, 'b');
      const zr = await c.zrange(`${p}z`, 0, -1, 'WITHSCORES');
      // RESP2: a flat [member, score, ...]; RESP3: [[member, score], ...]
      const zpairs = Array.isArray(zr[0]) ? zr : zr.flatMap((x, i) => (i % 2 ? [] : [[x, zr[i + 1]]]));
      const zrange = zpairs.map(([m, sc]) => [String(m), Number(sc)]);
      const zscore = Number(await c.zscore(`${p}z`, 'a'));
      return { hset, hgetall, rpush, lrange, sadd, smembers, zadd, zrange, zscore };
    },
    pipeline: async (c, p) => pairs(await c.pipeline().set(p, '1').incr(p).incrby(p, 5).get(p).exec()),
    setMany: async (c, keys) => {
      const pl = c.pipeline();
      for (const k of keys) pl.set(k, 'x');
      return pairs(await pl.exec());
    },
    transaction: async (c, t) => {
      const r = await c.multi().set(t, '1').incr(t).get(t).exec();
      return r === null ? null : pairs(r);
    },
    execError: async (c, k) => {
      const r = await c.multi().set(k, 'abc').incr(k).exec();
      return r === null ? null : pairs(r);
    },
    watch: (c, k) => c.watch(k),
    watchedSet: async (c, k, v) => {
      const r = await c.multi().set(k, v).exec();
      return r === null ? null : pairs(r);
    },
    scan: async (c, match, count) => {
      const seen = new Set();
      let cursor = '0';
      for (let round = 0; round < 10_000; round++) {
        const [next, keys] = await c.scan(cursor, 'MATCH', match, 'COUNT', count);
        keys.forEach((k) => seen.add(k));
        cursor = String(next);
        if (cursor === '0') return seen;
      }
      throw new Error('SCAN did not come back to cursor 0 within 10000 calls');
    },
  };
}

const a = clientName === 'node-redis' ? nodeRedisAdapter() : ioredisAdapter();
const results = [];

async function step(name, body) {
  try {
    const observed = await body();
    results.push({ step: name, ok: true, observed: norm(observed) });
  } catch (e) {
    results.push({ step: name, ok: false, error: String(e && e.message ? e.message : e) });
  }
  console.log(JSON.stringify(results[results.length - 1]));
}

const k = (s) => prefix + s;
const scanKeys = Array.from({ length: SCAN_KEYS }, (_, i) => k(`scan:${i}`));
let c = null;
let other = null;

await step('connect', async () => {
  c = await a.open();
  const info = String(await a.clientInfo(c));
  const m = /(?:^| )resp=(\d)/.exec(info);
  if (!m) throw new Error(`CLIENT INFO has no resp= field: ${info}`);
  const resp = Number(m[1]);
  if (protocol !== 'default' && resp !== Number(protocol)) {
    throw new Error(`asked for RESP${protocol}, the connection is RESP${resp}`);
  }
  await a.del(c, [k('ttl'), k('pipe'), k('tx'), k('watch:ok'), k('watch:conflict'), k('bin'), k('err'),
    k('txerr'), k('t:h'), k('t:l'), k('t:s'), k('t:z'), ...scanKeys]);
  return { resp };
});

if (c === null) {
  // nothing else can run: report every other step as failed, so that the output says so
  for (const name of ['ttl', 'pipeline', 'transaction', 'watch-ok', 'watch-conflict', 'scan', 'binary',
    'error', 'exec-error', 'types']) {
    results.push({ step: name, ok: false, error: 'not run: the client could not connect' });
    console.log(JSON.stringify(results[results.length - 1]));
  }
} else {
  await step('ttl', async () => {
    const set = await a.setEx(c, k('ttl'), 'v', 100);
    expectEqual('SET EX', set, 'OK');
    const get = await a.get(c, k('ttl'));
    expectEqual('GET', get, 'v');
    const ttl = Number(await a.ttl(c, k('ttl')));
    if (!(ttl > 0 && ttl <= 100)) throw new Error(`TTL: expected 1..100, got ${ttl}`);
    return { set, get, ttlInRange: true };
  });

  await step('pipeline', async () => {
    const r = await a.pipeline(c, k('pipe'));
    expectEqual('pipeline SET, INCR, INCRBY 5, GET', r, ['OK', 2, 7, '7']);
    return r;
  });

  await step('transaction', async () => {
    const r = await a.transaction(c, k('tx'));
    expectEqual('MULTI SET, INCR, GET, EXEC', r, ['OK', 2, '2']);
    expectEqual('GET after EXEC', await a.get(c, k('tx')), '2');
    return r;
  });

  await step('watch-ok', async () => {
    await a.watch(c, k('watch:ok'));
    const r = await a.watchedSet(c, k('watch:ok'), 'mine');
    expectEqual('EXEC with an untouched watched key', r, ['OK']);
    expectEqual('GET', await a.get(c, k('watch:ok')), 'mine');
    return r;
  });

  await step('watch-conflict', async () => {
    other = await a.open();
    await a.watch(c, k('watch:conflict'));
    await a.set(other, k('watch:conflict'), 'theirs');
    const r = await a.watchedSet(c, k('watch:conflict'), 'mine');
    expectEqual('EXEC after another connection wrote the watched key', r, null);
    const after = await a.get(c, k('watch:conflict'));
    expectEqual('GET', after, 'theirs');
    return { exec: r, after };
  });

  await step('scan', async () => {
    const sets = await a.setMany(c, scanKeys);
    if (sets.length !== SCAN_KEYS || sets.some((x) => x !== 'OK')) {
      throw new Error(`pipelined SETs: ${JSON.stringify(norm(sets)).slice(0, 200)}`);
    }
    const seen = await a.scan(c, k('scan:*'), 50);
    const missing = scanKeys.filter((x) => !seen.has(x));
    const foreign = [...seen].filter((x) => !scanKeys.includes(x));
    if (missing.length || foreign.length) {
      throw new Error(`SCAN MATCH: ${missing.length} keys missing (${missing.slice(0, 3)}), `
        + `${foreign.length} unexpected (${foreign.slice(0, 3)})`);
    }
    return { keys: seen.size };
  });

  await step('binary', async () => {
    expectEqual('SET', await a.set(c, k('bin'), BINARY), 'OK');
    const back = await a.getBuffer(c, k('bin'));
    if (!Buffer.isBuffer(back) || !back.equals(BINARY)) {
      throw new Error(`GET of the 256 byte values: got ${JSON.stringify(norm(back))}`);
    }
    expectEqual('STRLEN', await a.strlen(c, k('bin')), 256);
    return { length: back.length, hex: back.toString('hex') };
  });

  await step('error', async () => {
    await a.set(c, k('err'), 'abc');
    return expectError('INCR of a non-integer', a.incr(c, k('err')), NOT_INTEGER);
  });

  await step('exec-error', async () => {
    const r = await a.execError(c, k('txerr'));
    expectEqual('MULTI SET abc, INCR, EXEC', r, ['OK', new Error(NOT_INTEGER)]);
    return r;
  });

  await step('types', async () => {
    const r = await a.types(c, k('t:'));
    expectEqual('hashes, lists, sets, sorted sets', r, {
      hset: 2, hgetall: { a: '1', b: '2' }, rpush: 3, lrange: ['x', 'y', 'z'], sadd: 2, smembers: ['m', 'n'],
      zadd: 2, zrange: [['a', 1.5], ['b', 2]], zscore: 1.5,
    });
    return r;
  });
}

for (const x of [c, other]) {
  if (x !== null) {
    try { await a.close(x); } catch { /* already gone */ }
  }
}
const failed = results.filter((r) => !r.ok).map((r) => r.step);
console.log(JSON.stringify({ summary: { client: clientName, version, protocol, passed: results.length - failed.length, failed } }));
process.exit(failed.length ? 1 : 0);
