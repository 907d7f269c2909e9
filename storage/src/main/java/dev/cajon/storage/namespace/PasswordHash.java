package dev.cajon.storage.namespace;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * One password of a user, as Cajon keeps it: never the password itself.
 *
 * <p>{@link #PBKDF2_SHA256} (the only algorithm written to disk): PBKDF2WithHmacSHA256 from the
 * JDK, a random 16-byte salt per password, {@link #ITERATIONS} iterations, a 32-byte key. Its
 * input is the lower-case hex of the password's SHA-256, which makes any byte string a valid
 * input (the JDK's PBKDF2 takes chars) and lets the admin give a password by its SHA-256, as
 * Redis's {@code #<hash>} rule does, without Cajon ever storing that fast hash.
 *
 * <p>{@link #SHA256_MEMORY_ONLY}: the SHA-256 of {@code --requirepass}, compared in constant time.
 * It is never persisted ({@link AppRegistry} refuses it): that password is in the process's
 * command line anyway, so a slow hash of it would protect nothing, and it keeps PBKDF2 (and its
 * first-use cost of 0.1-0.2 s) off the start-up path.
 *
 * <p>What must stay true: {@link #toString()} and every reply show no hash material, and the
 * algorithm numbers are persisted codes, append-only.
 */
public final class PasswordHash {
    /** Persisted code: PBKDF2WithHmacSHA256 over the hex SHA-256 of the password. */
    public static final int PBKDF2_SHA256 = 1;
    /** In-memory only: the unsalted SHA-256 of the password (--requirepass). */
    public static final int SHA256_MEMORY_ONLY = 0;
    /**
     * About 15-25 ms per hash on this project's 2-core test machine (JDK 17; 12 ms for 50,000 and
     * 22 ms for 75,000 at best of seven, twice that while other builds ran). Stored with each
     * hash, so raising it later leaves existing hashes valid.
     */
    public static final int ITERATIONS = 75_000;
    static final int SALT_BYTES = 16;
    static final int KEY_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int algorithm;
    private final int iterations;
    private final byte[] salt;
    private final byte[] hash;

    /** A hash as read back from disk (or built by a test). */
    public PasswordHash(int algorithm, int iterations, byte[] salt, byte[] hash) {
        if (algorithm != PBKDF2_SHA256 && algorithm != SHA256_MEMORY_ONLY) {
            throw new IllegalArgumentException("unknown password hash algorithm " + algorithm);
        }
        this.algorithm = algorithm;
        this.iterations = iterations;
        this.salt = salt.clone();
        this.hash = hash.clone();
    }

    /** A new slow hash of {@code password} with a fresh random salt. */
    public static PasswordHash of(byte[] password) {
        return ofSha256Hex(sha256Hex(password));
    }

    /** A new slow hash of the password whose SHA-256 is {@code hex} (64 lower-case hex digits). */
    public static PasswordHash ofSha256Hex(String hex) {
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        return new PasswordHash(PBKDF2_SHA256, ITERATIONS, salt, pbkdf2(hex, salt, ITERATIONS));
    }

    /** The in-memory form of a configured password (see the class comment). */
    public static PasswordHash memoryOnly(byte[] password) {
        return new PasswordHash(SHA256_MEMORY_ONLY, 0, new byte[0], sha256(password));
    }

    /** Whether {@code password} is this password. Slow (one PBKDF2) for a persisted hash. */
    public boolean matches(byte[] password) {
        return matchesSha256Hex(sha256Hex(password));
    }

    /** Whether the password whose SHA-256 is {@code hex} is this password. */
    public boolean matchesSha256Hex(String hex) {
        if (algorithm == SHA256_MEMORY_ONLY) {
            return MessageDigest.isEqual(hash, HexFormat.of().parseHex(hex));
        }
        return MessageDigest.isEqual(hash, pbkdf2(hex, salt, iterations));
    }

    public int algorithm() {
        return algorithm;
    }

    public int iterations() {
        return iterations;
    }

    public byte[] salt() {
        return salt.clone();
    }

    public byte[] hash() {
        return hash.clone();
    }

    /** Whether {@code s} is what Redis accepts as a password hash: 64 lower-case hex digits. */
    public static boolean isSha256Hex(String s) {
        if (s.length() != 64) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (!(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f')) {
                return false;
            }
        }
        return true;
    }

    public static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256Hex(byte[] password) {
        return HexFormat.of().formatHex(sha256(password));
    }

    private static byte[] pbkdf2(String hex, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(hex.toCharArray(), salt, iterations, KEY_BYTES * 8);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", e);
        } finally {
            spec.clearPassword();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PasswordHash p && p.algorithm == algorithm && p.iterations == iterations
                && Arrays.equals(p.salt, salt) && Arrays.equals(p.hash, hash);
    }

    @Override
    public int hashCode() {
        return Objects.hash(algorithm, iterations, Arrays.hashCode(salt), Arrays.hashCode(hash));
    }

    /** No hash material: logs and exception messages may print this. */
    @Override
    public String toString() {
        return "PasswordHash[algorithm=" + algorithm + ", redacted]";
    }
}
