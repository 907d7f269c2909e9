package dev.cajon.storage;

/** Outcome of INCRBYFLOAT: a status and, when OK, the new value as stored. */
public record BytesResult(OpStatus status, byte[] value) {
}
