package dev.cajon.storage;

/** Outcome of INCRBY/DECRBY: a status and, when OK, the new value. */
public record CounterResult(OpStatus status, long value) {
}
