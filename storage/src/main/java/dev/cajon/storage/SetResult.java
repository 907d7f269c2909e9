package dev.cajon.storage;

/**
 * Outcome of SET and its variants.
 *
 * @param status OK (written), NOT_APPLIED (NX/XX condition failed) or WRONG_TYPE
 * @param old    the previous value when asked for (SET ... GET, GETSET), else null
 */
public record SetResult(OpStatus status, StringValue old) {
    static final SetResult OK = new SetResult(OpStatus.OK, null);
    static final SetResult NOT_APPLIED = new SetResult(OpStatus.NOT_APPLIED, null);
}
