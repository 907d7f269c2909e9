package dev.cajon.bot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A provider that records every call and fails when told to. Shared by the adapter's tests and the demo. */
public final class FakeProvider implements Provider {
    public record Call(String chat, String content, String pid) {
    }

    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, AtomicInteger> byContent = new ConcurrentHashMap<>();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger ids = new AtomicInteger();

    /** The next {@code n} calls throw. */
    public FakeProvider failNext(int n) {
        failures.set(n);
        return this;
    }

    @Override
    public String send(String chat, String content) throws Exception {
        if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new java.io.IOException("provider unavailable (test)");
        }
        String pid = "wamid." + ids.incrementAndGet();
        calls.add(new Call(chat, content, pid));
        byContent.computeIfAbsent(content, c -> new AtomicInteger()).incrementAndGet();
        return pid;
    }

    public List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    public int count(String content) {
        AtomicInteger n = byContent.get(content);
        return n == null ? 0 : n.get();
    }
}
