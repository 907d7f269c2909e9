package dev.cajon.server.command;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.Resp;
import dev.cajon.protocol.RespProtocol;
import dev.cajon.server.ServerContext;
import dev.cajon.server.session.ClientSession;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.StringValue;
import io.netty.buffer.ByteBuf;

/**
 * Everything a handler needs for one command: the arguments, the client's session, the keyspace
 * it works in, and reply helpers. One instance per connection, reused for every command.
 *
 * <p>Replies say what they mean ({@link #mapHeader}, {@link #nullBulk}, {@link #doubleValue},
 * {@link #verbatim}) and the connection's {@link RespProtocol}, set once by HELLO, writes the
 * RESP2 or RESP3 form; a handler never branches on the protocol.
 */
public final class Ctx {
    private final ServerContext server;
    private final ClientSession session;
    private ReplyOutput output;
    private RespProtocol proto = RespProtocol.RESP2;
    private Argv argv;
    private CommandSpec spec;

    /** Writes a value handed over by {@link dev.cajon.storage.StringOps#readInto} as a bulk reply. */
    private final Keyspace.ValueReader bulkWriter;

    public Ctx(ServerContext server, ClientSession session, ReplyOutput output) {
        this.server = server;
        this.session = session;
        this.output = output;
        this.bulkWriter = (array, off, len) -> Resp.bulk(out(), array, off, len);
    }

    /** The reader that turns a value into this connection's next bulk reply. */
    public Keyspace.ValueReader bulkWriter() {
        return bulkWriter;
    }

    void begin(Argv a, CommandSpec s) {
        this.argv = a;
        this.spec = s;
    }

    public ServerContext server() {
        return server;
    }

    public ClientSession session() {
        return session;
    }

    public Argv argv() {
        return argv;
    }

    public CommandSpec spec() {
        return spec;
    }

    public int argc() {
        return argv.argc();
    }

    public byte[] arg(int i) {
        return argv.arg(i);
    }

    /** A cursor over the arguments from position {@code from}. */
    public ArgCursor args(int from) {
        return new ArgCursor(argv, from);
    }

    /** The keyspace of the session's app and db. */
    public Keyspace keyspace() {
        long epoch = server.store().swapEpoch();
        Keyspace k = session.cachedKeyspace(epoch);
        if (k == null) {
            k = server.store().keyspace(session.app(), session.db());
            session.cacheKeyspace(k, epoch);
        }
        return k;
    }

    public ByteBuf out() {
        return output.buffer();
    }

    /** Sends the replies to {@code o} from now on (EXEC collects its replies); returns the previous output. */
    public ReplyOutput redirect(ReplyOutput o) {
        ReplyOutput prev = output;
        output = o;
        return prev;
    }

    /** The connection's protocol: RESP2 until HELLO 3. */
    public RespProtocol protocol() {
        return proto;
    }

    /** HELLO: replies use {@code p} from now on. */
    public void protocol(RespProtocol p) {
        proto = p;
        session.protocol(p);
    }

    // ------------------------------------------------------------------ replies

    public void ok() {
        Resp.raw(out(), Resp.OK);
    }

    public void raw(byte[] encoded) {
        Resp.raw(out(), encoded);
    }

    public void error(String message) {
        server.stats().errorReplies.increment();
        server.commandStats().error(message);
        Resp.error(out(), message);
    }

    public void integer(long v) {
        Resp.integer(out(), v);
    }

    /** The integer reply 1 or 0 (EXISTS, MSETNX ...), the same in both protocols. */
    public void bool(boolean v) {
        Resp.raw(out(), v ? Resp.ONE : Resp.ZERO);
    }

    public void bulk(byte[] b) {
        Resp.bulk(out(), b);
    }

    public void bulk(String s) {
        Resp.bulk(out(), s);
    }

    /** A missing value: {@code $-1} in RESP2, {@code _} in RESP3. */
    public void nullBulk() {
        proto.nullBulk(out());
    }

    /** A null array (EXEC aborted by WATCH): {@code *-1} in RESP2, {@code _} in RESP3. */
    public void nullArray() {
        proto.nullArray(out());
    }

    /** A map of {@code n} pairs follows: {@code %n} in RESP3, an array of 2n in RESP2. */
    public void mapHeader(long n) {
        proto.mapHeader(out(), n);
    }

    /** A set of {@code n} members follows: {@code ~n} in RESP3, an array in RESP2. */
    public void setHeader(long n) {
        proto.setHeader(out(), n);
    }

    /** A push of {@code n} elements follows: {@code >n} in RESP3, an array in RESP2. */
    public void pushHeader(long n) {
        proto.pushHeader(out(), n);
    }

    /** A double: {@code ,} in RESP3, a bulk string in RESP2, formatted as Redis 7.0 does. */
    public void doubleValue(double d) {
        proto.doubleValue(out(), d);
    }

    /** A true boolean: {@code #t}/{@code #f} in RESP3, 1/0 in RESP2 (see {@link #bool} for integer replies). */
    public void trueFalse(boolean v) {
        proto.bool(out(), v);
    }

    /** A verbatim text (INFO, CLIENT LIST): {@code =len\r\ntxt:} in RESP3, a bulk string in RESP2. */
    public void verbatim(String text) {
        proto.verbatim(out(), "txt", text);
    }

    /** A big number: {@code (} in RESP3, a bulk string in RESP2. */
    public void bigNumber(String digits) {
        proto.bigNumber(out(), digits);
    }

    public void simple(String s) {
        Resp.simple(out(), s);
    }

    public void arrayHeader(long n) {
        Resp.arrayHeader(out(), n);
    }

    /** A HELP subcommand's reply: one status line per element, as Redis's addReplyHelp. */
    public void helpLines(java.util.List<String> lines) {
        arrayHeader(lines.size());
        lines.forEach(this::simple);
    }

    /** Counts a read lookup in INFO's keyspace_hits / keyspace_misses, as Redis's lookupKeyRead. */
    public void lookedUp(boolean hit) {
        (hit ? server.stats().keyspaceHits : server.stats().keyspaceMisses).increment();
    }

    /** A string value as a bulk reply, or nil when null; also counts a keyspace hit or miss. */
    public void value(StringValue v) {
        if (v == null) {
            server.stats().keyspaceMisses.increment();
            nullBulk();
            return;
        }
        server.stats().keyspaceHits.increment();
        valueNoStats(v);
    }

    /** A string value as a bulk reply (never null). Blob values are streamed from their file. */
    public void valueNoStats(StringValue v) {
        if (!v.isBlob()) {
            Resp.bulk(out(), v.array(), v.offset(), (int) v.length());
            return;
        }
        Resp.bulkHeader(out(), v.length());
        if (v.length() > 0) {
            output.streamFile(v.channel(), v.position(), v.length());
        } else {
            v.release();
        }
        Resp.crlf(out());
    }

    // ------------------------------------------------------------------ blocking commands

    /** Keys that got a write a blocked client may wait for; served after the top-level command. */
    private java.util.ArrayList<dev.cajon.server.blocking.BlockingKeys.Ready> readyKeys;

    /**
     * {@code key} of the current keyspace got a write that may serve a blocked client (LPUSH,
     * LMOVE's destination ...). Costs nothing while no client is blocked.
     */
    public void readyKey(byte[] key) {
        if (server.blocking().anyWaiting()) {
            readyKey(keyspace(), key);
        }
    }

    /** {@link #readyKey(byte[])} for a key of another keyspace of the app (COPY ... DB, MOVE). */
    public void readyKey(Keyspace ks, byte[] key) {
        if (!server.blocking().anyWaiting()) {
            return;
        }
        if (readyKeys == null) {
            readyKeys = new java.util.ArrayList<>(2);
        }
        readyKeys.add(new dev.cajon.server.blocking.BlockingKeys.Ready(ks, key));
    }

    /** The dispatcher, after a top-level command: serves the clients blocked on the keys it wrote. */
    void serveReadyKeys() {
        if (readyKeys != null && !readyKeys.isEmpty()) {
            java.util.List<dev.cajon.server.blocking.BlockingKeys.Ready> r = java.util.List.copyOf(readyKeys);
            readyKeys.clear();
            server.blocking().serve(r);
        }
    }

    /** The connection, when it can park a blocked command; null in EXEC (replies collected) and in-process. */
    public dev.cajon.server.blocking.BlockingKeys.Host blockingHost() {
        return output instanceof dev.cajon.server.blocking.BlockingKeys.Host h ? h : null;
    }
}
