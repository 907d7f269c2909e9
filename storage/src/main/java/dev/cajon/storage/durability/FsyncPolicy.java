package dev.cajon.storage.durability;

import java.util.Locale;

/**
 * When the data files reach the disk: Redis's {@code appendfsync}, with its names and meaning.
 * <ul>
 *   <li>{@link #ALWAYS}: no reply leaves before the writes of its batch are on disk (one sync per
 *       event-loop batch, a group commit, as Redis's beforeSleep does for the AOF);</li>
 *   <li>{@link #EVERYSEC}: a background thread syncs what was written, once a second; a power
 *       cut loses about the last second;</li>
 *   <li>{@link #NO}: the OS writes the pages back when it likes (Linux: within about 30 s).</li>
 * </ul>
 * Every policy survives a kill -9: the page cache outlives the process.
 */
public enum FsyncPolicy {
    ALWAYS("always"),
    EVERYSEC("everysec"),
    NO("no");

    private final String word;

    FsyncPolicy(String word) {
        this.word = word;
    }

    /** The word of redis.conf and CONFIG GET. */
    public String word() {
        return word;
    }

    /** The policy named {@code s} (any case), or null. */
    public static FsyncPolicy parse(String s) {
        String l = s.toLowerCase(Locale.ROOT);
        for (FsyncPolicy p : values()) {
            if (p.word.equals(l)) {
                return p;
            }
        }
        return null;
    }
}
