package dev.cajon.server;

/** Versions Cajon reports. */
public final class Version {
    /** Cajon's own version, from the jar manifest when packaged. */
    public static final String CAJON;
    /**
     * The Redis version whose behaviour Cajon matches. Clients (Lettuce, redis-cli, Jedis) read
     * HELLO's and INFO's redis_version to decide which commands they may send.
     */
    public static final String REDIS_COMPAT = "7.0.15";

    static {
        String v = Version.class.getPackage().getImplementationVersion();
        CAJON = v == null ? "0.1.0-SNAPSHOT" : v;
    }

    private Version() {
    }
}
