package dev.entangle.refine;

import dev.entangle.core.CoreTerm;
import dev.entangle.core.IdRange;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Shapes;
import dev.entangle.core.TypeAnalysis;
import dev.entangle.egraph.SaturationMemo;
import dev.entangle.rules.Lemmas;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** What every operator's check shares: both programs, the lemmas, the relation found so far. */
final class Context {
  final GsWalk gs;
  final GdModel gd;
  final OpTable table;
  final TypeAnalysis analysis;
  final Lemmas lemmas;
  final CheckOptions options;
  final CheckListener listener;
  final long deadline;

  /**
   * R: for each G_s value, the clean G_d terms known to equal it. Like the other state below, one
   * thread writes it while checks run ahead of their turn read it ({@link Speculation}).
   */
  final Map<Integer, List<CoreTerm>> relation = new ConcurrentHashMap<>();

  /** G_s values whose operator found no clean expression; consumers use their terms instead. */
  final Set<Integer> deferred = ConcurrentHashMap.newKeySet();

  /** G_d values that R relates to some G_s value: a G_d computation over them is worth a look. */
  final SharedBits related;

  /** G_d equalities: the relation file's and those proved so far. */
  final GdEqualities equalities;

  /** The ranges the relation states, by G_d value (representatives). */
  final Map<Integer, IdRange> ranges;

  /** How often each lemma fired, in the order of {@link Lemmas#names()}. */
  final int[] fired;

  /**
   * Whether saturations are replayed ({@link #replays(Lemmas, CheckOptions)}): then each operator's
   * e-graph keeps a journal, by which {@link #saturations} knows it.
   */
  final boolean replays;

  /**
   * Every operator's saturations: run, and kept to be replayed on an operator whose e-graph was
   * built alike (the same layer of a deeper model, say), with its own G_d values in place of the
   * run's. An e-graph without a journal is always run ({@link SaturationMemo}).
   */
  final Saturations saturations;

  /** The operators whose first attribute names a value rather than describing it. */
  static final int[] NAMING_OPS = {Op.TENSOR.id(), Op.UNDEF.id()};

  /**
   * What the saturation memo may keep, in longs of journal and nodes of images (each at most about
   * 64 bytes): a sixteenth of the heap, at most 8 million (an 80-layer model at TP=8 uses a few
   * hundred thousand, one layer's worth).
   */
  static final long MEMO_BUDGET = Math.min(8_000_000, Runtime.getRuntime().maxMemory() / 1024);

  Context(
      GsWalk gs,
      GdModel gd,
      Lemmas lemmas,
      CheckOptions options,
      CheckListener listener,
      long deadline,
      List<List<CoreTerm>> equalities,
      Map<Integer, IdRange> ranges) {
    this.gs = gs;
    this.ranges = Map.copyOf(ranges);
    this.gd = gd;
    this.table = gd.program.table();
    this.analysis = new TypeAnalysis(new Shapes(table, id -> gd.program.value((int) id).type()));
    this.lemmas = lemmas;
    this.options = options;
    this.listener = listener;
    this.deadline = deadline;
    this.equalities = new GdEqualities(equalities);
    this.related = new SharedBits(gd.size());
    this.fired = new int[lemmas.rewrites().size()];
    this.replays = replays(lemmas, options);
    this.saturations = new Saturations(lemmas.rewrites(), MEMO_BUDGET);
  }

  /**
   * Whether saturations may be replayed: the options allow it and no lemma names G_d tensors or
   * undefined values (whose attribute a lemma could compare, telling two alike e-graphs apart).
   */
  static boolean replays(Lemmas lemmas, CheckOptions options) {
    if (!options.replay()) {
      return false;
    }
    for (int op : NAMING_OPS) {
      if (lemmas.mention(op)) {
        return false;
      }
    }
    return true;
  }

  /** Records R(v) and the G_d values it uses. */
  void relate(int gsValue, List<CoreTerm> terms) {
    relation.put(gsValue, List.copyOf(terms));
    Set<Integer> leaves = new HashSet<>();
    for (CoreTerm e : terms) {
      e.leaves(leaves);
    }
    leaves.forEach(related::set);
  }
}
