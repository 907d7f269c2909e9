package dev.cajon.server.hardening;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cajon.server.limits.FdLimit;
import dev.cajon.server.limits.MemorySize;
import dev.cajon.server.limits.NetLimits;
import org.junit.jupiter.api.Test;

/** Redis's memory units, and what an open files limit allows. */
class LimitValuesTest {
    @Test
    void memoryValuesTakeRedissUnits() {
        assertEquals(536870912L, MemorySize.parse("512mb"));
        assertEquals(512_000_000L, MemorySize.parse("512m"));
        assertEquals(1073741824L, MemorySize.parse("1GB"));
        assertEquals(1024L, MemorySize.parse("1kb"));
        assertEquals(1000L, MemorySize.parse("1k"));
        assertEquals(7L, MemorySize.parse("7"));
        assertEquals(7L, MemorySize.parse("7b"));
        for (String bad : new String[] {"", "mb", "-1", "1.5mb", "1tb", "99999999999999999999", "9223372036854775807gb"}) {
            assertEquals(-1, MemorySize.parse(bad), bad);
        }
    }

    @Test
    void eachClientNeedsASocketAndAtMostOneBlobFile() {
        assertEquals(20_032, NetLimits.descriptorsFor(10_000));
        assertEquals(9_984, FdLimit.fit(10_000, 20_000));
        assertEquals(10_000, FdLimit.fit(10_000, 1_000_000));
        assertEquals(1, FdLimit.fit(10_000, 10));
    }
}
