package dev.cajon.bot.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The persisted record format is pinned byte for byte, and user ids cannot move a hash tag. */
class FieldsAndKeysTest {
    @Test
    void theRecordFormatIsPinned() {
        Fields f = Fields.of().put("state", "SENT").put("fence", 7).put("content", "50% off\nhoy\r");
        assertEquals("cajon-bot/1\nstate=SENT\nfence=7\ncontent=50%25 off%0Ahoy%0D", f.encode());
        Fields back = Fields.decode(f.encode());
        assertEquals("50% off\nhoy\r", back.get("content"));
        assertEquals(7, back.getLong("fence", 0));
        assertEquals(null, Fields.decode(null));
        assertEquals("x", Fields.decode("cajon-bot/1\nstate=x\nfuture=ignored").get("state"));
        assertThrows(IllegalStateException.class, () -> Fields.decode("cajon-bot/2\nstate=x"));
    }

    @Test
    void braceInAChatIdIsEscapedSoEveryKeyOfTheChatSharesOneSlot() {
        Keys k = new Keys("bot");
        assertEquals("bot:{c:%7Bvip%7D+54 9%25}:in:m%7B1%7D", k.inbound("{vip}+54 9%", "m{1}"));
        int slot = JedisClusterCRC16.getSlot(k.lease("{vip}+54"));
        assertEquals(slot, JedisClusterCRC16.getSlot(k.inbound("{vip}+54", "any")));
        assertEquals(slot, JedisClusterCRC16.getSlot(k.state("{vip}+54")));
        assertEquals("bot:{o:a/b:1}:out", k.outbound("a/b:1"));
    }
}
