package dev.entangle.refine;

import dev.entangle.lower.CoreTerm;
import dev.entangle.ops.OpTable;
import dev.entangle.ops.Shapes;
import dev.entangle.ops.TypeAnalysis;
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

  /** How often each lemma fired, in the order of {@link Lemmas#names()}. */
  final int[] fired;

  Context(
      GsWalk gs,
      GdModel gd,
      Lemmas lemmas,
      CheckOptions options,
      CheckListener listener,
      long deadline,
      List<List<CoreTerm>> equalities) {
    this.gs = gs;
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
