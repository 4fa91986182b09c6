package dev.entangle.egraph;

import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Remembers what {@link Runner} runs left of e-graphs, by the e-graphs' {@linkplain Journal
 * journals}, and puts that back into an e-graph whose journal is equal up to its names instead of
 * searching it.
 *
 * <p>A run is a deterministic function of the e-graph's state, the rewrites and the limits other
 * than time. Equal journals mean equal states up to the names, and no rewrite tells names apart
 * beyond equality (no pattern or template names a naming operator; the caller checks), so a run on
 * either e-graph makes the same changes, names aside, and leaves the same state. The memo keeps
 * that state ({@link EGraphImage}) and the records the run added to the journal; a replay puts the
 * state back with this e-graph's names and writes the records, so the e-graph and its journal are
 * exactly what the run would have left, and every later step sees no difference.
 *
 * <p>Runs stopped by the deadline are not remembered (they depend on time), nor runs that added a
 * named node (a replay would not know its name); past the deadline nothing is replayed either (a
 * run would stop at once). The memo keeps the most recently used runs within a budget, and never a
 * run larger than the whole budget. Thread-safe.
 *
 * @param <D> the analysis fact type
 */
public final class SaturationMemo<D> {
  private final List<Rewrite<D>> rewrites;
  private final long budget;
  private final Map<Key, Replay<D>> runs = new LinkedHashMap<>(64, 0.75f, true);
  private long used;
  private long hits;
  private long misses;

  /**
   * @param rewrites the rewrites every run uses
   * @param budget most longs of journal and nodes of images the memo keeps
   */
  public SaturationMemo(List<Rewrite<D>> rewrites, long budget) {
    this.rewrites = List.copyOf(rewrites);
    this.budget = budget;
  }

  /**
   * Runs the rewrites on {@code g} until saturation or a limit ({@link Runner#run}, never stopping
   * for a goal), or replays a remembered run. Without a journal on {@code g}, or past the deadline,
   * this is a plain run.
   */
  public RunReport run(EGraph<D> g, Runner.Limits limits) {
    Journal j = g.journal();
    if (j == null || System.nanoTime() > limits.deadlineNanos()) {
      // past the deadline a run stops at once, and so must a replay
      synchronized (this) {
        misses++;
      }
      return Runner.run(g, rewrites, limits, () -> false);
    }
    Probe probe = new Probe(j, limits);
    Replay<D> known = find(probe);
    if (known != null) {
      known.apply(g, j);
      return known.report;
    }
    int start = j.length();
    RunReport report = Runner.run(g, rewrites, limits, () -> false);
    if (!(report.stopReason() instanceof StopReason.TimeLimit) && j.factCount() == probe.facts) {
      remember(
          new Key(j.records(0, start), j.facts(probe.facts), probe.hash, limits),
          new Replay<>(EGraphImage.of(g), j.records(start, j.length()), j.hash(), report));
    }
    return report;
  }

  /** How many runs were replayed and how many ran, as {@code [replayed, ran]}. */
  public synchronized long[] counts() {
    return new long[] {hits, misses};
  }

  private synchronized Replay<D> find(Probe p) {
    Replay<D> r = runs.get(p);
    if (r != null) {
      hits++;
    } else {
      misses++;
    }
    return r;
  }

  private synchronized void remember(Key k, Replay<D> r) {
    if (runs.containsKey(k) || k.records.length + r.size() > budget) {
      return;
    }
    runs.put(k, r);
    used += k.records.length + r.size();
    Iterator<Map.Entry<Key, Replay<D>>> eldest = runs.entrySet().iterator();
    while (used > budget && eldest.hasNext()) {
      Map.Entry<Key, Replay<D>> e = eldest.next();
      used -= e.getKey().records.length + e.getValue().size();
      eldest.remove();
    }
  }

  /**
   * A journal as it stands, compared with remembered {@link Key}s without copying it. Equal to a
   * key exactly when the key's records and facts are the journal's and the limits are equal.
   */
  private static final class Probe {
    final Journal journal;
    final int length;
    final int facts;
    final long hash;
    final Runner.Limits limits;

    Probe(Journal journal, Runner.Limits limits) {
      this.journal = journal;
      this.length = journal.length();
      this.facts = journal.factCount();
      this.hash = journal.hash();
      this.limits = limits;
    }

    @Override
    public int hashCode() {
      return Key.hash(hash, limits);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k
          && k.hash == hash
          && k.records.length == length
          && k.facts.size() == facts
          && Key.sameLimits(k.limits, limits)
          && journal.startsWith(k.records, length, k.facts);
    }
  }

  /** A remembered journal: its records, the facts of its named nodes, and the run's limits. */
  private static final class Key {
    final long[] records;
    final List<Object> facts;
    final long hash;
    final Runner.Limits limits;

    Key(long[] records, List<Object> facts, long hash, Runner.Limits limits) {
      this.records = records;
      this.facts = Collections.unmodifiableList(facts);
      this.hash = hash;
      this.limits = limits;
    }

    static int hash(long h, Runner.Limits l) {
      long x = h * 31 + l.iterations() * 17L + l.nodes() * 13L + l.matchesPerRule();
      return (int) (x ^ (x >>> 32));
    }

    static boolean sameLimits(Runner.Limits a, Runner.Limits b) {
      return a.iterations() == b.iterations()
          && a.nodes() == b.nodes()
          && a.matchesPerRule() == b.matchesPerRule();
    }

    @Override
    public int hashCode() {
      return hash(hash, limits);
    }

    @Override
    public boolean equals(Object o) {
      if (o instanceof Probe p) {
        return p.equals(this);
      }
      return o instanceof Key k
          && k.hash == hash
          && sameLimits(k.limits, limits)
          && Arrays.equals(k.records, records)
          && k.facts.equals(facts);
    }
  }

  /**
   * What a run left: the e-graph's state, the records the run added to the journal, the journal's
   * hash after them, and the run's report.
   */
  private record Replay<D>(EGraphImage<D> image, long[] changes, long hashAfter, RunReport report) {
    void apply(EGraph<D> g, Journal j) {
      image.restoreInto(g);
      j.append(changes);
      if (j.hash() != hashAfter) {
        throw new IllegalStateException(
            "a remembered saturation's journal does not follow on from the e-graph's (a bug in"
                + " the saturation memo)");
      }
    }

    long size() {
      return changes.length + image.size();
    }
  }
}
