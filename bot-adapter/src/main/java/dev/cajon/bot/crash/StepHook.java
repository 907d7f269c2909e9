package dev.cajon.bot.crash;

/**
 * Called by the adapter around each named step ({@code inbox.journal}, {@code outbox.markSent},
 * ...; see docs/BOT-ADAPTER.md for the list). The {@link CrashKit} uses it to stop the backend
 * at a chosen point; in production it is {@link #NONE}.
 */
public interface StepHook {
    StepHook NONE = new StepHook() {
        @Override
        public void before(String step) {
        }

        @Override
        public void after(String step) {
        }
    };

    void before(String step);

    void after(String step);
}
