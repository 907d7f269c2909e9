package dev.cajon.storage;

/**
 * The outcome of a storage operation. Storage never writes replies: the server maps each status
 * to its Redis reply in exactly one place ({@code StatusReplies}).
 */
public enum OpStatus {
    OK,
    /** The key does not exist (or has expired). */
    NOT_FOUND,
    /** A NX/XX style condition was not met; nothing was written. */
    NOT_APPLIED,
    WRONG_TYPE,
    /** The stored value (or the argument) is not a base-10 signed 64-bit integer. */
    NOT_INTEGER,
    /** The stored value is not a valid float. */
    NOT_FLOAT,
    /** The result would not fit in a signed 64-bit integer. */
    OVERFLOW,
    /** INCRBYFLOAT would produce NaN or Infinity. */
    NAN_OR_INFINITY,
    /** The resulting string would exceed the 512 MiB limit. */
    TOO_LARGE,
    /** The store cannot take the write (disk or map capacity exhausted). */
    OOM
}
