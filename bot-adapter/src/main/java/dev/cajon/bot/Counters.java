package dev.cajon.bot;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/**
 * The adapter's counters. Each is also a Micrometer counter named
 * {@code cajon.bot.<name>} (e.g. {@code cajon.bot.inboundJournaled}) tagged with the instance,
 * when the builder was given a registry.
 */
final class Counters {
    final LongAdder inboundJournaled = new LongAdder();
    final LongAdder inboundDuplicates = new LongAdder();
    final LongAdder inboundReplayed = new LongAdder();
    final LongAdder inboundDead = new LongAdder();
    final LongAdder outboxJournaled = new LongAdder();
    final LongAdder outboxDeduped = new LongAdder();
    final LongAdder outboxRetried = new LongAdder();
    final LongAdder outboxDeferred = new LongAdder();
    final LongAdder outboxDead = new LongAdder();
    final LongAdder outboxAmbiguous = new LongAdder();
    final LongAdder outboxBypassed = new LongAdder();
    final LongAdder staleLeases = new LongAdder();

    BotMetrics snapshot() {
        return new BotMetrics(inboundJournaled.sum(), inboundDuplicates.sum(), inboundReplayed.sum(),
                inboundDead.sum(), outboxJournaled.sum(), outboxDeduped.sum(), outboxRetried.sum(),
                outboxDeferred.sum(), outboxDead.sum(), outboxAmbiguous.sum(), outboxBypassed.sum(),
                staleLeases.sum());
    }

    void register(MeterRegistry registry, String instanceId) {
        if (registry == null) {
            return;
        }
        meter(registry, instanceId, "inboundJournaled", inboundJournaled);
        meter(registry, instanceId, "inboundDuplicates", inboundDuplicates);
        meter(registry, instanceId, "inboundReplayed", inboundReplayed);
        meter(registry, instanceId, "inboundDead", inboundDead);
        meter(registry, instanceId, "outboxJournaled", outboxJournaled);
        meter(registry, instanceId, "outboxDeduped", outboxDeduped);
        meter(registry, instanceId, "outboxRetried", outboxRetried);
        meter(registry, instanceId, "outboxDeferred", outboxDeferred);
        meter(registry, instanceId, "outboxDead", outboxDead);
        meter(registry, instanceId, "outboxAmbiguous", outboxAmbiguous);
        meter(registry, instanceId, "outboxBypassed", outboxBypassed);
        meter(registry, instanceId, "staleLeases", staleLeases);
    }

    private static void meter(MeterRegistry r, String instance, String name, LongAdder a) {
        FunctionCounter.builder("cajon.bot." + name, a, LongAdder::doubleValue)
                .tag("instance", instance).register(r);
    }
}
