package dev.cajon.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.protocol.RequestDecoder;
import dev.cajon.server.testkit.InProcessServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event loops' share of active expiry: when the wheel falls more than
 * {@value ConnectionHandler#ASSIST_AFTER_MILLIS} ms behind the clock (the reapers cannot keep up),
 * each read batch reclaims part of the backlog after its replies are flushed. Runs the real
 * pipeline (decoder and connection handler) on an embedded channel with a manual clock.
 */
class ExpiryAssistTest {
    @TempDir
    Path dir;
    InProcessServer server;
    EmbeddedChannel channel;

    @BeforeEach
    void open() {
        server = InProcessServer.openWithAssistingEventLoops(dir);
        channel = new EmbeddedChannel(new RequestDecoder(), new ConnectionHandler(server.context()));
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        server.close();
    }

    /** Sends one inline command as its own read batch and returns the reply text. */
    private String send(String line) {
        channel.writeInbound(Unpooled.copiedBuffer(line + "\r\n", StandardCharsets.UTF_8));
        StringBuilder sb = new StringBuilder();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            sb.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return sb.toString();
    }

    @Test
    void aReadBatchReclaimsTheBacklogOnlyOnceTheWheelIsFarBehind() {
        for (int i = 0; i < 3; i++) {
            assertEquals("+OK\r\n", send("SET k" + i + " v PX 100"));
        }
        server.advance(90);
        assertEquals(0, server.reap()); // the wheel is up to date at 89 ms
        server.advance(20);             // due since 101 ms; the wheel is 20 ms behind: no help yet
        assertEquals("+PONG\r\n", send("PING"));
        assertEquals(":3\r\n", send("DBSIZE"), "expired keys count until reclaimed, as in Redis");
        server.advance(10);             // 30 ms behind
        assertEquals(":3\r\n", send("DBSIZE"), "the reply is flushed before the batch's share of the backlog");
        assertEquals(":0\r\n", send("DBSIZE"), "the previous batch reclaimed them");
        assertEquals(3, server.context().wheel().reclaimedCount());
        assertEquals(0, server.reap(), "nothing left for the reapers");
    }

    @Test
    void withoutActiveExpiryTheEventLoopsNeverReclaim() {
        InProcessServer manual = InProcessServer.openWithActiveExpiry(dir.resolve("manual"));
        EmbeddedChannel ch = new EmbeddedChannel(new RequestDecoder(), new ConnectionHandler(manual.context()));
        try {
            ch.writeInbound(Unpooled.copiedBuffer("SET k v PX 100\r\n", StandardCharsets.UTF_8));
            manual.advance(1_000);
            ch.writeInbound(Unpooled.copiedBuffer("PING\r\n", StandardCharsets.UTF_8));
            ch.writeInbound(Unpooled.copiedBuffer("PING\r\n", StandardCharsets.UTF_8));
            assertEquals(0, manual.context().wheel().reclaimedCount());
            assertEquals(1, manual.reap());
        } finally {
            ch.finishAndReleaseAll();
            manual.close();
        }
    }
}
