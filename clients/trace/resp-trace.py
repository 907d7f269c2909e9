"""A logging RESP proxy, for tracing what a client sends on connect and what the server answers.

    /usr/bin/python3 clients/trace/resp-trace.py LISTEN_PORT UPSTREAM_PORT [LOG] [--max N]

Listens on 127.0.0.1:LISTEN_PORT (0: a free port, printed on stderr), forwards every connection to 127.0.0.1:UPSTREAM_PORT, and writes
each command a client sends and the server's reply to it (RESP2 or RESP3, parsed, in order) to
LOG (default: stdout), per connection; "[write N]" is the read from the client's socket the command
arrived in, so commands with the same N were pipelined. Unlike `redis-cli MONITOR` it also shows the commands the
server rejects (unknown command, unknown subcommand, NOPROTO), which Redis never feeds to monitors.
Only the first N commands of each connection are logged (default 12): enough for a handshake.
Stops by itself after 120 s without a new connection. Loopback only.
"""
import socket
import sys
import threading

args = [a for a in sys.argv[1:] if not a.startswith("--")]
MAX = 12
if "--max" in sys.argv:
    MAX = int(sys.argv[sys.argv.index("--max") + 1])
    args.remove(str(MAX))
LISTEN, UPSTREAM = int(args[0]), int(args[1])
out = open(args[2], "a", buffering=1) if len(args) > 2 else sys.stdout
lock = threading.Lock()
counter = [0]


class Reader:
    """Parses RESP values from a byte stream that arrives in pieces."""

    def __init__(self):
        self.buf = b""

    def feed(self, data):
        self.buf += data

    def _line(self, i):
        j = self.buf.find(b"\r\n", i)
        if j < 0:
            raise EOFError
        return self.buf[i:j], j + 2

    def _value(self, i):
        line, i = self._line(i)
        t, rest = line[:1], line[1:]
        if t in b"+-:,#(_":
            return (t.decode(), rest.decode("utf-8", "replace")), i
        if t in b"$=!":
            n = int(rest)
            if n < 0:
                return ("$", None), i
            if len(self.buf) < i + n + 2:
                raise EOFError
            return (t.decode(), self.buf[i:i + n]), i + n + 2
        if t in b"*~>%|":
            n = int(rest)
            if n < 0:
                return ("*", None), i
            count = n * 2 if t in b"%|" else n
            items = []
            for _ in range(count):
                v, i = self._value(i)
                items.append(v)
            if t == b"|":  # an attribute comes before the value it describes
                v, i = self._value(i)
                return ("|", (items, v)), i
            return (t.decode(), items), i
        # an inline command (no RESP framing): the whole line
        return ("inline", line), i

    def next(self):
        try:
            v, i = self._value(0)
        except (EOFError, ValueError, IndexError):
            return None
        self.buf = self.buf[i:]
        return v


def text(b, limit=80):
    s = b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)
    s = s.replace("\r\n", "\\r\\n").replace("\n", "\\n")
    return s if len(s) <= limit else s[:limit] + f"...({len(b)} bytes)"


def show(v):
    t, x = v
    if t in "+:,#(":
        return t + x
    if t == "-":
        return "-" + x
    if t == "_":
        return "_ (null)"
    if x is None:
        return f"{t}-1 (null)"
    if t == "$":
        return '"' + text(x) + '"'
    if t == "=":
        return "=" + text(x)
    if t == "!":
        return "!" + text(x)
    if t == "|":
        return "|attr " + show(x[1])
    if t == "%":
        pairs = [f"{show(x[i])}: {show(x[i + 1])}" for i in range(0, len(x), 2)]
        return "%{" + ", ".join(pairs) + "}"
    if t in "*~>":
        return t + "[" + ", ".join(show(y) for y in x) + "]"
    return f"{t} {text(x)}"


def command(v):
    t, x = v
    if t == "inline":
        return "inline: " + text(x)
    line = " ".join(text(a[1], 60) for a in x)
    return line if len(line) <= 160 else line[:160] + f"... ({len(x)} arguments)"


def pump(src, dst, on_data):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            on_data(data)
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def handle(client, n):
    upstream = socket.create_connection(("127.0.0.1", UPSTREAM))
    requests, replies = Reader(), Reader()
    pending = []
    logged = [0]

    def log(line):
        with lock:
            out.write(f"conn {n}: {line}\n")

    writes = [0]

    def on_request(data):
        writes[0] += 1
        requests.feed(data)
        while (v := requests.next()) is not None:
            pending.append(f"[write {writes[0]}] {command(v)}")

    def on_reply(data):
        replies.feed(data)
        while (v := replies.next()) is not None:
            if v[0] == ">":
                if logged[0] < MAX:
                    log(f"   (push) {show(v)}")
                continue
            req = pending.pop(0) if pending else "?"
            if logged[0] < MAX:
                log(f"{req}\n          -> {show(v)}")
            logged[0] += 1

    threading.Thread(target=pump, args=(client, upstream, on_request), daemon=True).start()
    pump(upstream, client, on_reply)


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", LISTEN))
server.listen(16)
# the port, for whoever waits for the proxy to be ready (LISTEN_PORT 0 takes a free one)
print(f"resp-trace: listening on 127.0.0.1:{server.getsockname()[1]}", file=sys.stderr, flush=True)
server.settimeout(120)
while True:
    try:
        c, _ = server.accept()
    except socket.timeout:
        break
    counter[0] += 1
    threading.Thread(target=handle, args=(c, counter[0]), daemon=True).start()
