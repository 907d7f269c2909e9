package dev.cajon.bench.soak;

/** What one round checked, and (added up) the whole soak. */
final class Counts {
    long ackedOps;
    long keys;
    long counters;
    /** Keys with a TTL whose state was decided: present with the right TTL, or gone after the deadline. */
    long ttls;
    /** Of those, keys whose deadline had passed and which were gone. */
    long expired;
    /** Acknowledged EXECs whose effect was checked, aborted ones included, and EXECs in flight at the kill. */
    long transactions;
    /** Ops in flight at the kill (one per client at most), resolved as applied or not. */
    long inflight;
    /** Of those, MSET, RENAME and EXEC that had to be whole or absent. */
    long inflightMultiKey;
    /** Of those, found applied (and not also as acknowledged: a DEL of absent keys fits both). */
    long inflightApplied;
    long isolation;
    long bigValues;

    void add(Counts o) {
        ackedOps += o.ackedOps;
        keys += o.keys;
        counters += o.counters;
        ttls += o.ttls;
        expired += o.expired;
        transactions += o.transactions;
        inflight += o.inflight;
        inflightMultiKey += o.inflightMultiKey;
        inflightApplied += o.inflightApplied;
        isolation += o.isolation;
        bigValues += o.bigValues;
    }
}
