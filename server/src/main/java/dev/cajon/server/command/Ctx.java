package dev.cajon.server.command;

import dev.cajon.protocol.Argv;
import dev.cajon.protocol.Resp;
import dev.cajon.server.ServerContext;
import dev.cajon.server.session.ClientSession;
import dev.cajon.storage.Keyspace;
import dev.cajon.storage.StringValue;
import io.netty.buffer.ByteBuf;

/**
 * Everything a handler needs for one command: the arguments, the client's session, the keyspace
 * it works in, and reply helpers. One instance per connection, reused for every command.
 */
public final class Ctx {
    private final ServerContext server;
    private final ClientSession session;
    private final ReplyOutput output;
    private Argv argv;
    private CommandSpec spec;

    /** Writes a value handed over by {@link Keyspace#readInto} as a bulk reply. */
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
        Keyspace k = session.cachedKeyspace();
        if (k == null) {
            k = server.store().keyspace(session.app(), session.db());
            session.cacheKeyspace(k);
        }
        return k;
    }

    public ByteBuf out() {
        return output.buffer();
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
        Resp.error(out(), message);
    }

    public void integer(long v) {
        Resp.integer(out(), v);
    }

    public void bool(boolean v) {
        Resp.raw(out(), v ? Resp.ONE : Resp.ZERO);
    }

    public void bulk(byte[] b) {
        Resp.bulk(out(), b);
    }

    public void bulk(String s) {
        Resp.bulk(out(), s);
    }

    public void nullBulk() {
        Resp.nullBulk(out());
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
}
