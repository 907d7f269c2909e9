package dev.cajon.storage.namespace;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One app: an ACL user of Cajon and the drawer of keys it owns ({@code <dir>/<name>/db<N>/}).
 * Immutable; a change makes a new record, so "the record I checked" is a plain identity test
 * (the server's cache of password checks relies on that).
 *
 * @param name      the user name, also the name of the app's directory (see {@link #validName})
 * @param enabled   ACL's {@code on}/{@code off}: an app that is off cannot authenticate
 * @param nopass    ACL's {@code nopass}: any password authenticates
 * @param passwords its passwords, hashed ({@code >pass} adds one, {@code <pass} removes one)
 * @param maxKeys   the app's key quota, -1 for the server's default
 * @param maxBytes  the app's byte quota, -1 for the server's default
 * @param settings  further settings by name, for what later versions add without a new format
 */
public record App(String name, boolean enabled, boolean nopass, List<PasswordHash> passwords, long maxKeys,
                  long maxBytes, Map<String, String> settings) {
    /** Quota value meaning "the server's default". */
    public static final long SERVER_DEFAULT = -1;

    /**
     * Letters, digits, '-' and '_', starting with a letter or digit, 1 to 64 characters: a name
     * that is the same directory name on every file system Cajon runs on, can never be "." or
     * "..", and cannot collide with the files Cajon keeps beside the app directories (they all
     * have a '.' in their names).
     */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

    public App {
        passwords = List.copyOf(passwords);
        settings = java.util.Collections.unmodifiableMap(new TreeMap<>(settings));
    }

    /** What {@code ACL SETUSER name} creates before its rules apply: off, no password, default quotas. */
    public static App created(String name) {
        return new App(name, false, false, List.of(), SERVER_DEFAULT, SERVER_DEFAULT, Map.of());
    }

    /** Whether {@code name} can name an app (and its directory). */
    public static boolean validName(String name) {
        return NAME.matcher(name).matches();
    }

    public App withEnabled(boolean on) {
        return new App(name, on, nopass, passwords, maxKeys, maxBytes, settings);
    }

    public App withNopass(boolean v) {
        return new App(name, enabled, v, passwords, maxKeys, maxBytes, settings);
    }

    public App withPasswords(List<PasswordHash> p) {
        return new App(name, enabled, nopass, p, maxKeys, maxBytes, settings);
    }

    public App withQuotas(long keys, long bytes) {
        return new App(name, enabled, nopass, passwords, keys, bytes, settings);
    }

    public App withSettings(Map<String, String> s) {
        return new App(name, enabled, nopass, passwords, maxKeys, maxBytes, s);
    }
}
