package dev.cajon.storage.namespace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The apps registry: its persisted format (pinned byte for byte), its writes and its refusals. */
class AppRegistryTest {
    @TempDir
    Path dir;

    private static byte[] fill(int n, int from) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    /** A fixed password hash (salt 0x00.., hash 0x40..), so the file's bytes are known. */
    private static PasswordHash fixedHash() {
        return new PasswordHash(PasswordHash.PBKDF2_SHA256, 75_000, fill(16, 0), fill(32, 0x40));
    }

    private static App shop() {
        return new App("shop", true, false, List.of(fixedHash()), 1000, -1, Map.of("note", "x"));
    }

    /**
     * Version 1, pinned: a change of this layout must come with a new version (and a reader for
     * the old one), never silently.
     */
    @Test
    void formatVersionOneIsPinned() {
        byte[] bytes = AppRegistry.encode(List.of(shop(), new App("b", false, true, List.of(), -1, 5, Map.of())));
        String expected = ""
                + "43414a4e41505053" // magic "CAJNAPPS"
                + "00000001" // version 1
                + "00000002" // two apps
                // shop: name, flags (on), one password: algorithm 1, 75000 iterations, salt, hash
                + "000473686f70" + "01" + "00000001" + "01" + "000124f8"
                + "10" + "000102030405060708090a0b0c0d0e0f"
                + "20" + "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                + "00000000000003e8" // maxKeys 1000
                + "ffffffffffffffff" // maxBytes: the server's default
                + "00000001" + "00046e6f7465" + "000178" // settings: note=x
                // b: off, nopass, no passwords, maxKeys default, maxBytes 5, no settings
                + "000162" + "02" + "00000000" + "ffffffffffffffff" + "0000000000000005" + "00000000";
        int crcAt = bytes.length - 4;
        assertEquals(expected, HexFormat.of().formatHex(bytes, 0, crcAt));
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(bytes, 0, crcAt);
        assertEquals((int) crc.getValue(), ByteBuffer.wrap(bytes, crcAt, 4).getInt(), "the last 4 bytes are the CRC-32");
        assertEquals(List.of(shop(), new App("b", false, true, List.of(), -1, 5, Map.of())),
                AppRegistry.decode(bytes, null));
    }

    @Test
    void appsSurviveReopeningAndChangesReplaceTheFileWhole() throws Exception {
        AppRegistry r = AppRegistry.open(dir);
        assertTrue(r.all().isEmpty());
        assertFalse(Files.exists(dir.resolve(AppRegistry.FILE)), "nothing is written before the first app");
        r.put(shop());
        r.put(App.created("alpha").withEnabled(true));
        assertEquals(List.of("alpha", "shop"), r.all().stream().map(App::name).toList(), "name order");
        assertFalse(Files.exists(dir.resolve(AppRegistry.TMP)), "the temporary file was renamed into place");

        AppRegistry again = AppRegistry.open(dir);
        assertEquals(shop(), again.get("shop"));
        assertTrue(again.get("alpha").enabled());
        assertEquals(List.of(fixedHash()), again.get("shop").passwords());

        again.removeAll(List.of("shop", "nosuch"));
        assertNull(AppRegistry.open(dir).get("shop"));
        assertEquals(List.of("alpha"), AppRegistry.open(dir).all().stream().map(App::name).toList());
    }

    @Test
    void aWriteCutShortLeavesTheOldRegistry() throws Exception {
        AppRegistry r = AppRegistry.open(dir);
        r.put(shop());
        // a crash between writing the temporary file and renaming it
        Files.write(dir.resolve(AppRegistry.TMP), new byte[] {1, 2, 3});
        AppRegistry again = AppRegistry.open(dir);
        assertEquals(shop(), again.get("shop"));
        assertFalse(Files.exists(dir.resolve(AppRegistry.TMP)));
    }

    @Test
    void aDamagedRegistryStopsTheStartInsteadOfLosingTheApps() throws Exception {
        AppRegistry.open(dir).put(shop());
        Path file = dir.resolve(AppRegistry.FILE);
        byte[] good = Files.readAllBytes(file);

        byte[] flipped = good.clone();
        flipped[20] ^= 1;
        Files.write(file, flipped);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AppRegistry.open(dir));
        assertTrue(e.getMessage().contains("CRC mismatch") && e.getMessage().contains(AppRegistry.FILE), e.getMessage());

        Files.write(file, java.util.Arrays.copyOf(good, good.length - 7));
        assertThrows(IllegalStateException.class, () -> AppRegistry.open(dir));

        byte[] newer = good.clone();
        newer[11] = 2; // version 2, with a valid CRC
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(newer, 0, newer.length - 4);
        ByteBuffer.wrap(newer, newer.length - 4, 4).putInt((int) crc.getValue());
        Files.write(file, newer);
        e = assertThrows(IllegalStateException.class, () -> AppRegistry.open(dir));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());

        Files.write(file, "not a registry at all".getBytes(StandardCharsets.US_ASCII));
        assertThrows(IllegalStateException.class, () -> AppRegistry.open(dir));
    }

    @Test
    void anInMemoryPasswordIsNeverPersisted() {
        App def = App.created("default").withPasswords(List.of(PasswordHash.memoryOnly(new byte[] {'p'})));
        assertThrows(IllegalArgumentException.class, () -> AppRegistry.encode(List.of(def)));
    }

    @Test
    void passwordHashesAreSaltedSlowAndVerifiable() {
        byte[] pw = "secret".getBytes(StandardCharsets.UTF_8);
        PasswordHash a = PasswordHash.of(pw);
        PasswordHash b = PasswordHash.of(pw);
        assertEquals(PasswordHash.PBKDF2_SHA256, a.algorithm());
        assertEquals(PasswordHash.ITERATIONS, a.iterations());
        assertEquals(16, a.salt().length);
        assertEquals(32, a.hash().length);
        assertNotEquals(HexFormat.of().formatHex(a.salt()), HexFormat.of().formatHex(b.salt()), "a salt per password");
        assertNotEquals(a, b);
        assertTrue(a.matches(pw));
        assertTrue(b.matches(pw));
        assertFalse(a.matches("Secret".getBytes(StandardCharsets.UTF_8)));
        assertFalse(a.matches(new byte[0]));
        // Redis's #<hash> rule: the same password, given by its SHA-256
        String sha = HexFormat.of().formatHex(PasswordHash.sha256(pw));
        assertTrue(PasswordHash.ofSha256Hex(sha).matches(pw));
        assertFalse(a.toString().contains(HexFormat.of().formatHex(a.hash())));
        // binary passwords work too
        byte[] binary = {0, (byte) 0xFF, '\r', '\n'};
        assertTrue(PasswordHash.of(binary).matches(binary));
        assertFalse(PasswordHash.of(binary).matches(new byte[] {0, (byte) 0xFF, '\r'}));
        PasswordHash mem = PasswordHash.memoryOnly(pw);
        assertTrue(mem.matches(pw));
        assertFalse(mem.matches(new byte[] {'x'}));
    }

    @Test
    void appNamesAreSafeDirectoryNames() {
        for (String ok : new String[] {"shop", "default", "Shop-2", "a", "a_b", "0", "x".repeat(64)}) {
            assertTrue(App.validName(ok), ok);
        }
        for (String bad : new String[] {"", ".", "..", "a/b", "a\\b", "-x", "_x", "a b", "a.b", "x".repeat(65),
                "caf\u00e9", "a\u0000b", ".dropped"}) {
            assertFalse(App.validName(bad), bad);
        }
    }

    @Test
    void anAppIsImmutable() {
        App a = shop();
        App b = a.withEnabled(false);
        assertTrue(a.enabled());
        assertFalse(b.enabled());
        assertArrayEquals(fixedHash().hash(), a.passwords().get(0).hash());
        assertThrows(UnsupportedOperationException.class, () -> a.passwords().clear());
        assertThrows(UnsupportedOperationException.class, () -> a.settings().put("k", "v"));
    }
}
