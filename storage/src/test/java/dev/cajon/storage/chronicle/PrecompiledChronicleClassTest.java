package dev.cajon.storage.chronicle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import net.openhft.chronicle.hash.VanillaGlobalMutableState;
import net.openhft.chronicle.values.Values;
import org.junit.jupiter.api.Test;

/**
 * The value class Chronicle Map would otherwise generate and compile with javac at the first map
 * creation of every JVM ({@code VanillaGlobalMutableState$$Native}, the map file's global header)
 * ships precompiled in this module. It describes the layout of bytes in every persisted map file,
 * so it must be exactly what the library generates: after a chronicle-map upgrade this test fails
 * until the source is regenerated ({@code -Dcajon.regenerate=true} rewrites it).
 */
class PrecompiledChronicleClassTest {
    private static final Path SOURCE = Path.of("src/main/java/net/openhft/chronicle/hash/VanillaGlobalMutableState$$Native.java");

    @Test
    void shippedSourceIsWhatTheLibraryGeneratesToday() throws Exception {
        String generated = generate(VanillaGlobalMutableState.class);
        String file = Files.readString(SOURCE, StandardCharsets.UTF_8);
        int header = file.indexOf("package ");
        if (Boolean.getBoolean("cajon.regenerate")) {
            Files.writeString(SOURCE, file.substring(0, header) + generated, StandardCharsets.UTF_8);
            return;
        }
        assertEquals(generated, file.substring(header),
                "chronicle-values now generates a different " + SOURCE.getFileName()
                        + ": regenerate it with -Dcajon.regenerate=true (see the file's header)");
    }

    @Test
    void chronicleUsesTheShippedClassInsteadOfCompilingOne() throws IOException {
        Class<?> c = Values.nativeClassFor(VanillaGlobalMutableState.class);
        assertEquals("net.openhft.chronicle.hash.VanillaGlobalMutableState$$Native", c.getName());
        // a class javac produced at run time has no code source; ours comes from this module's classes
        CodeSource src = c.getProtectionDomain().getCodeSource();
        assertNotNull(src, "the class was compiled at run time, not loaded from the module");
        Path classes = Path.of("target/classes").toAbsolutePath();
        assertTrue(Path.of(src.getLocation().getPath()).toAbsolutePath().startsWith(classes)
                        || src.getLocation().getPath().endsWith(".jar"),
                "loaded from " + src.getLocation());
    }

    /** What chronicle-values' own generator writes for {@code type} (package-private API). */
    static String generate(Class<?> type) throws Exception {
        Class<?> modelClass = Class.forName("net.openhft.chronicle.values.ValueModel");
        Object model = modelClass.getMethod("acquire", Class.class).invoke(null, type);
        Method simpleName = modelClass.getDeclaredMethod("simpleName");
        simpleName.setAccessible(true);
        Class<?> generators = Class.forName("net.openhft.chronicle.values.Generators");
        Method gen = generators.getDeclaredMethod("generateNativeClass", modelClass, String.class);
        gen.setAccessible(true);
        return (String) gen.invoke(null, model, simpleName.invoke(model) + "$$Native");
    }
}
