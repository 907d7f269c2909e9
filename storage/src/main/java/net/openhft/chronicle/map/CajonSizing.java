package net.openhft.chronicle.map;

/**
 * Two sizes a {@link ChronicleMapBuilder} computes and keeps package-private: its segments and
 * its entries per segment. {@code dev.cajon.storage.chronicle.MapFile} reads them from the
 * builder of a preallocated file and gives them to the sparse one, because Chronicle sizes the
 * segments of a sparse file for {@code maxBloatFactor} times its entries (hash slots that cost
 * resident memory and disk once touched), and Cajon wants the sparse file laid out exactly as the
 * preallocated one was. The builder must be fully configured; the call does not change it.
 */
public final class CajonSizing {
    private CajonSizing() {
    }

    public static long entriesPerSegment(ChronicleMapBuilder<?, ?> b) {
        return b.entriesPerSegment();
    }

    public static int actualSegments(ChronicleMapBuilder<?, ?> b) {
        return b.actualSegments();
    }
}
