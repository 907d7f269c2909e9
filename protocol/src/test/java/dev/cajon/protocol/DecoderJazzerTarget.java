package dev.cajon.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The decoder fuzzer's check ({@link DecoderFuzz#checkOnce}) as a Jazzer (libFuzzer) target, for
 * coverage-guided runs: {@code bin/fuzz MINUTES jazzer}. The first two bytes of each input choose
 * the connection's limits and the size of the reads; the rest is what the client sends. Jazzer
 * instruments the decoder and netty-codec-redis and steers the bytes towards new branches; a
 * failing check is an AssertionError, which Jazzer reports as a finding and saves as crash-*.
 */
public final class DecoderJazzerTarget {
    private static long inputs;

    private DecoderJazzerTarget() {
    }

    public static void fuzzerInitialize() {
        LeakCheck.init();
    }

    public static void fuzzerTestOneInput(byte[] data) {
        if (data.length < 2) {
            return;
        }
        int l = data[0] & 0xFF;
        long maxBulk = l % 5 == 1 ? data[1] & 0x3F : RequestDecoder.MAX_BULK;
        boolean auth = l % 5 == 2;
        long maxQuery = l % 5 == 3 ? 1 + (data[1] & 0xFF) * 16 : DecoderLimits.DEFAULT.maxQueryBuffer();
        List<Integer> reads = new ArrayList<>();
        reads.add(1 + (data[1] & 0xFF) % (l % 2 == 0 ? 7 : 200));
        reads.add(1 + (l >> 3));
        DecoderFuzz.checkOnce(new DecoderFuzzCase(Arrays.copyOfRange(data, 2, data.length), maxBulk, auth, maxQuery,
                reads));
        if (++inputs % 20_000 == 0) {
            LeakCheck.assertNoLeaksReported();
        }
    }
}
