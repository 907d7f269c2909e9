package dev.cajon.storage;

/** SET's existence condition. */
public enum SetCondition {
    ALWAYS, IF_ABSENT, IF_PRESENT
}
