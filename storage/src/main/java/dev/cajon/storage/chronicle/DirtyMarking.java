package dev.cajon.storage.chronicle;

import dev.cajon.storage.durability.SyncTarget;
import java.lang.reflect.Field;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.MapAbsentEntry;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapEntryOperations;

/**
 * Chronicle's hook on every change of an entry (put, replace, insert, remove, through a query
 * context or the map's own methods): does the change, then marks the map file dirty for the
 * fsync policy. So no caller of the map has to remember to, and reads cost nothing.
 *
 * <p>Chronicle keeps entry operations in transient fields, set from the builder whenever a file
 * is mapped; nothing of this is persisted in the file's header.
 */
final class DirtyMarking implements MapEntryOperations<byte[], byte[], Void> {
    private final SyncTarget target;

    DirtyMarking(SyncTarget target) {
        this.target = target;
    }

    @Override
    public Void remove(MapEntry<byte[], byte[]> entry) {
        entry.doRemove();
        target.mark();
        return null;
    }

    @Override
    public Void replaceValue(MapEntry<byte[], byte[]> entry, Data<byte[]> newValue) {
        entry.doReplaceValue(newValue);
        target.mark();
        return null;
    }

    @Override
    public Void insert(MapAbsentEntry<byte[], byte[]> absentEntry, Data<byte[]> value) {
        absentEntry.doInsert(value);
        target.mark();
        return null;
    }

    private static final Field FAST_GET = fastGetField();

    private static Field fastGetField() {
        try {
            Field f = Class.forName("net.openhft.chronicle.map.VanillaChronicleMap")
                    .getDeclaredField("defaultEntryOperationsAndMethods");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Gives {@code map.get} back Chronicle's fast path. Chronicle turns it off as soon as entry
     * operations are not its defaults, because a custom {@code MapMethods} could change what a
     * get does; ours only wraps the three writes, which a get never calls, so the fast path is
     * exactly right. Where the field is missing (another Chronicle version), get stays on the
     * general path: slower, still correct.
     */
    static <M extends ChronicleMap<byte[], byte[]>> M withFastGet(M map) {
        if (FAST_GET != null) {
            try {
                FAST_GET.setBoolean(map, true);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // general path
            }
        }
        return map;
    }
}
