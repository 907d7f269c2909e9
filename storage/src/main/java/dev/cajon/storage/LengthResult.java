package dev.cajon.storage;

/** Outcome of APPEND / SETRANGE: a status and, when OK, the new string length. */
public record LengthResult(OpStatus status, long length) {
}
