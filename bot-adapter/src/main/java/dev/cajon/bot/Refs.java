package dev.cajon.bot;

/**
 * The references the wheel and the logs hold: {@code i <chat> <mid>} for an inbound record,
 * {@code o <key>} for an outbound one, separated by newlines (the parts escaped like record
 * fields). A reference names a record; the record says whether there is still work.
 */
final class Refs {
    private Refs() {
    }

    static String inbound(InboundId id) {
        return "i\n" + esc(id.chat()) + "\n" + esc(id.messageId());
    }

    static String outbound(String key) {
        return "o\n" + esc(key);
    }

    static boolean isInbound(String ref) {
        return ref.startsWith("i\n");
    }

    static InboundId inboundId(String ref) {
        String[] p = ref.split("\n", -1);
        return new InboundId(unesc(p[1]), unesc(p[2]));
    }

    static String outboundKey(String ref) {
        return unesc(ref.substring(2));
    }

    private static String esc(String s) {
        return s.replace("%", "%25").replace("\n", "%0A");
    }

    private static String unesc(String s) {
        return s.replace("%0A", "\n").replace("%25", "%");
    }
}
