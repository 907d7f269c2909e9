"""The client matrix's app scenario (issue 11) for redis-py, run with Debian's python3-redis.

ClientMatrixTest runs it against a real redis-server and against Cajon and compares the output:

    /usr/bin/python3 scenario.py --host H --port P [--protocol default|2|3] [--prefix P]

Prints one JSON line per step ({"step","ok","observed"} or {"step","ok":false,"error"}) and a last
{"summary"} line; exits 1 if any expectation failed, 2 if redis-py is missing, 3 if this redis-py
cannot speak the protocol asked for (redis-py has RESP3, the `protocol=3` argument, from 5.0 on;
Debian 12 ships 4.3.4). "observed" must not depend on the server (no ids, no exact TTL).
"""
import argparse
import inspect
import json
import sys

# redis-py drops the "ERR " of an error reply (ResponseError's text is the rest): this is what its
# users see for Redis's "-ERR value is not an integer or out of range"
NOT_INTEGER = "value is not an integer or out of range"
SCAN_KEYS = 300
BINARY = bytes(range(256))

parser = argparse.ArgumentParser()
parser.add_argument("--host", required=True)
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--protocol", default="default", choices=["default", "2", "3"])
parser.add_argument("--prefix")
args = parser.parse_args()
prefix = args.prefix or f"matrix:redis-py:{args.protocol}:"

try:
    import redis
except ImportError as e:
    print(json.dumps({"missing": f"redis-py is not installed for {sys.executable}: {e}"}))
    sys.exit(2)

options = dict(host=args.host, port=args.port, socket_timeout=5, socket_connect_timeout=5)
if args.protocol != "default":
    if "protocol" not in inspect.signature(redis.Redis.__init__).parameters:
        print(json.dumps({"unsupported": f"redis-py {redis.__version__} has no protocol= option "
                                         f"(RESP3 needs redis-py 5.0 or later)"}))
        sys.exit(3)
    options["protocol"] = int(args.protocol)


def norm(v):
    """A reply as plain JSON: bytes as UTF-8 text (hex if not UTF-8), errors as {error}."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": v.hex()}
    if isinstance(v, BaseException):
        return {"error": str(v)}
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {str(norm(k)): norm(x) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        return sorted(norm(x) for x in v)
    return repr(v)


class Failed(Exception):
    pass


def expect_equal(what, actual, expected):
    a, e = json.dumps(norm(actual)), json.dumps(norm(expected))
    if a != e:
        raise Failed(f"{what}: expected {e}, got {a}")


results = []


def step(name, body):
    try:
        results.append({"step": name, "ok": True, "observed": norm(body())})
    except Exception as e:  # every failure is reported as this step's, the next steps still run
        results.append({"step": name, "ok": False, "error": f"{type(e).__name__}: {e}"})
    print(json.dumps(results[-1], separators=(",", ":")), flush=True)


def k(s):
    return prefix + s


scan_keys = [k(f"scan:{i}") for i in range(SCAN_KEYS)]
r = redis.Redis(**options)
other = redis.Redis(**options)


def connect():
    info = r.execute_command("CLIENT", "INFO")
    info = info.decode() if isinstance(info, bytes) else str(info)
    fields = dict(f.split("=", 1) for f in info.split() if "=" in f)
    if "resp" not in fields:
        raise Failed(f"CLIENT INFO has no resp= field: {info}")
    resp = int(fields["resp"])
    if args.protocol != "default" and resp != int(args.protocol):
        raise Failed(f"asked for RESP{args.protocol}, the connection is RESP{resp}")
    r.delete(k("ttl"), k("pipe"), k("tx"), k("watch:ok"), k("watch:conflict"), k("bin"), k("err"),
             k("txerr"), k("t:h"), k("t:l"), k("t:s"), k("t:z"), *scan_keys)
    return {"resp": resp}


def ttl():
    s = r.set(k("ttl"), "v", ex=100)
    expect_equal("SET EX", s, True)
    g = r.get(k("ttl"))
    expect_equal("GET", g, b"v")
    t = r.ttl(k("ttl"))
    if not 0 < t <= 100:
        raise Failed(f"TTL: expected 1..100, got {t}")
    return {"set": s, "get": g, "ttlInRange": True}


def pipeline():
    p = r.pipeline(transaction=False)
    p.set(k("pipe"), 1).incr(k("pipe")).incrby(k("pipe"), 5).get(k("pipe"))
    out = p.execute()
    expect_equal("pipeline SET, INCR, INCRBY 5, GET", out, [True, 2, 7, b"7"])
    return out


def transaction():
    p = r.pipeline(transaction=True)
    p.set(k("tx"), 1).incr(k("tx")).get(k("tx"))
    out = p.execute()
    expect_equal("MULTI SET, INCR, GET, EXEC", out, [True, 2, b"2"])
    expect_equal("GET after EXEC", r.get(k("tx")), b"2")
    return out


def watched_set(key, value, meanwhile=None):
    """WATCH key, then (after `meanwhile`) MULTI SET key value EXEC; None if the EXEC was aborted."""
    with r.pipeline() as p:
        p.watch(key)
        if meanwhile:
            meanwhile()
        p.multi()
        p.set(key, value)
        try:
            return p.execute()
        except redis.WatchError:
            return None


def watch_ok():
    out = watched_set(k("watch:ok"), "mine")
    expect_equal("EXEC with an untouched watched key", out, [True])
    expect_equal("GET", r.get(k("watch:ok")), b"mine")
    return out


def watch_conflict():
    out = watched_set(k("watch:conflict"), "mine", lambda: other.set(k("watch:conflict"), "theirs"))
    expect_equal("EXEC after another connection wrote the watched key", out, None)
    after = r.get(k("watch:conflict"))
    expect_equal("GET", after, b"theirs")
    return {"exec": out, "after": after}


def scan():
    p = r.pipeline(transaction=False)
    for key in scan_keys:
        p.set(key, "x")
    sets = p.execute()
    if sets != [True] * SCAN_KEYS:
        raise Failed(f"pipelined SETs: {json.dumps(norm(sets))[:200]}")
    seen, cursor = set(), 0
    for _ in range(10_000):
        cursor, keys = r.scan(cursor, match=k("scan:*"), count=50)
        seen.update(x.decode() for x in keys)
        if cursor == 0:
            break
    else:
        raise Failed("SCAN did not come back to cursor 0 within 10000 calls")
    missing, foreign = set(scan_keys) - seen, seen - set(scan_keys)
    if missing or foreign:
        raise Failed(f"SCAN MATCH: {len(missing)} keys missing {sorted(missing)[:3]}, "
                     f"{len(foreign)} unexpected {sorted(foreign)[:3]}")
    return {"keys": len(seen)}


def binary():
    expect_equal("SET", r.set(k("bin"), BINARY), True)
    back = r.get(k("bin"))
    if back != BINARY:
        raise Failed(f"GET of the 256 byte values: got {norm(back)}")
    expect_equal("STRLEN", r.strlen(k("bin")), 256)
    return {"length": len(back), "hex": back.hex()}


def error():
    r.set(k("err"), "abc")
    try:
        got = r.incr(k("err"))
    except redis.ResponseError as e:
        if type(e) is not redis.ResponseError or str(e) != NOT_INTEGER:
            raise Failed(f'INCR of a non-integer: expected the error "{NOT_INTEGER}", got {type(e).__name__} "{e}"')
        return {"error": str(e)}
    raise Failed(f'INCR of a non-integer: expected the error "{NOT_INTEGER}", got the reply {got!r}')


def exec_error():
    p = r.pipeline(transaction=True)
    p.set(k("txerr"), "abc").incr(k("txerr"))
    out = p.execute(raise_on_error=False)
    expect_equal("MULTI SET abc, INCR, EXEC", out, [True, redis.ResponseError(NOT_INTEGER)])
    return out


def types():
    o = {"hset": r.hset(k("t:h"), mapping={"a": "1", "b": "2"}),
         "hgetall": {norm(f): norm(v) for f, v in sorted(r.hgetall(k("t:h")).items())},
         "rpush": r.rpush(k("t:l"), "x", "y", "z"),
         "lrange": norm(r.lrange(k("t:l"), 0, -1)),
         "sadd": r.sadd(k("t:s"), "m", "n"),
         "smembers": sorted(norm(x) for x in r.smembers(k("t:s"))),
         "zadd": r.zadd(k("t:z"), {"a": 1.5, "b": 2}),
         "zrange": [[norm(m), float(sc)] for m, sc in r.zrange(k("t:z"), 0, -1, withscores=True)],
         "zscore": float(r.zscore(k("t:z"), "a"))}
    expect_equal("hashes, lists, sets, sorted sets", o,
                 {"hset": 2, "hgetall": {"a": "1", "b": "2"}, "rpush": 3, "lrange": ["x", "y", "z"], "sadd": 2,
                  "smembers": ["m", "n"], "zadd": 2, "zrange": [["a", 1.5], ["b", 2.0]], "zscore": 1.5})
    return o


step("connect", connect)
if not results[-1]["ok"]:
    for name in ["ttl", "pipeline", "transaction", "watch-ok", "watch-conflict", "scan", "binary", "error",
                 "exec-error", "types"]:
        results.append({"step": name, "ok": False, "error": "not run: the client could not connect"})
        print(json.dumps(results[-1], separators=(",", ":")))
else:
    for name, body in [("ttl", ttl), ("pipeline", pipeline), ("transaction", transaction), ("watch-ok", watch_ok),
                       ("watch-conflict", watch_conflict), ("scan", scan), ("binary", binary), ("error", error),
                       ("exec-error", exec_error), ("types", types)]:
        step(name, body)

for c in (r, other):
    try:
        c.close()
    except Exception:
        pass
failed = [x["step"] for x in results if not x["ok"]]
print(json.dumps({"summary": {"client": "redis-py", "version": redis.__version__, "protocol": args.protocol,
                              "passed": len(results) - len(failed), "failed": failed}}, separators=(",", ":")))
sys.exit(1 if failed else 0)
