package dev.cajon.server.family;

import static dev.cajon.server.testkit.RespAssertions.assertError;
import static dev.cajon.server.testkit.RespAssertions.assertReply;

import dev.cajon.protocol.RedisErrors;
import dev.cajon.server.testkit.FamilyTestBase;
import org.junit.jupiter.api.Test;

/**
 * A member, field or element over what one tree entry holds is refused with Cajon's own error,
 * and nothing of the command is written: not the big one, not the small ones beside it.
 */
class CollectionLimitsTest extends FamilyTestBase {
    private static final String BIG_KEY = "m".repeat(16_385);
    private static final String BIG_VALUE = "v".repeat(131_009); // over MAX_ENTRY (128 KiB less 64 bytes)

    @Test
    void anOversizedMemberIsRefusedAndNothingIsWritten() {
        assertReply(run("sadd", "s", "a"), 1);
        assertError(run("sadd", "s", "b", BIG_KEY), RedisErrors.COLLECTION_ENTRY_TOO_LARGE);
        assertReply(run("scard", "s"), 1);
        assertError(run("hset", "h", "f", "1", BIG_KEY, "v"), RedisErrors.COLLECTION_ENTRY_TOO_LARGE);
        assertReply(run("exists", "h"), 0);
        assertError(run("hset", "h", "f", BIG_VALUE), RedisErrors.COLLECTION_ENTRY_TOO_LARGE);
        assertError(run("rpush", "l", "x", BIG_VALUE), RedisErrors.COLLECTION_ENTRY_TOO_LARGE);
        assertReply(run("exists", "l"), 0);
        assertError(run("zadd", "z", "1", BIG_KEY), RedisErrors.COLLECTION_ENTRY_TOO_LARGE);
        assertReply(run("exists", "z"), 0);
    }

    @Test
    void membersAtTheLimitAreKept() {
        String key = "m".repeat(16_376); // 16 KiB less the 8 bytes of the member's hash
        assertReply(run("sadd", "s", key), 1);
        assertReply(run("sismember", "s", key), 1);
        assertReply(run("hset", "h", "f", "v".repeat(130_999)), 1); // with the field's 9 bytes: MAX_ENTRY
        assertReply(run("rpush", "l", "v".repeat(131_008)), 1); // MAX_ENTRY: 128 KiB less 64 bytes
        assertReply(run("hset", "h", "f", "w".repeat(130_000)), 0); // a lone overwrite of the big page
        assertReply(run("hstrlen", "h", "f"), 130_000);
        assertReply(run("strlen", "nothing"), 0);
    }
}
