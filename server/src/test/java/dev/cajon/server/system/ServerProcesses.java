package dev.cajon.server.system;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Owns the processes a system test class starts, and kills them whatever the outcome: processes
 * started inside a test die after that test, processes started in {@code @BeforeAll} after the
 * class. Register it as a static field with {@code @RegisterExtension}.
 */
final class ServerProcesses implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private final Deque<CajonProcess> classScoped = new ArrayDeque<>();
    private final Deque<CajonProcess> testScoped = new ArrayDeque<>();
    private volatile boolean inTest;

    /** Starts a server on {@code dir} and waits until it is ready (see {@link CajonProcess#start}). */
    CajonProcess start(String name, Path dir, String... extraArgs) {
        // register before waiting, so a start that times out is still cleaned up
        return CajonProcess.start(name, dir, this::track, extraArgs);
    }

    /** Starts any command without waiting for it. */
    CajonProcess launch(String name, List<String> command, int port, Path dir) {
        return track(CajonProcess.launch(name, command, port, dir));
    }

    synchronized CajonProcess track(CajonProcess p) {
        (inTest ? testScoped : classScoped).push(p);
        return p;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        inTest = false;
        closeAll(testScoped);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        closeAll(testScoped);
        closeAll(classScoped);
    }

    private synchronized void closeAll(Deque<CajonProcess> processes) {
        while (!processes.isEmpty()) {
            processes.pop().close();
        }
    }
}
