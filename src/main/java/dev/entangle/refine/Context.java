package dev.entangle.refine;

import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.OpTable;
import dev.entangle.ops.Shapes;
import dev.entangle.ops.TypeAnalysis;
import dev.entangle.rules.Lemmas;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What every operator's check shares: both graphs, the lemmas, the relation found so far. */
final class Context {
  final GsModel gs;
  final GdModel gd;
  final OpTable table;
  final Shapes shapes;
  final TypeAnalysis analysis;
  final AtenNormalizer normalizer;
  final Lemmas lemmas;
  final RelationTerms terms;
  final CheckOptions options;
  final long deadline;
  /** R: for each G_s value, the clean G_d expressions known to equal it. */
  final Map<String, List<GdExpr>> relation = new HashMap<>();
  /** G_s values whose operator found no clean expression; consumers use their terms instead. */
  final java.util.Set<String> deferred = new java.util.HashSet<>();
  /** G_d values that R relates to some G_s value: a G_d computation over them is worth a look. */
  final java.util.BitSet related = new java.util.BitSet();

  /** Records R(name) and the G_d values it uses. */
  void relate(String name, List<GdExpr> exprs) {
    relation.put(name, exprs);
    java.util.Set<Integer> leaves = new java.util.HashSet<>();
    for (GdExpr e : exprs) {
      e.leaves(leaves);
    }
    leaves.forEach(related::set);
  }

  /** G_d equalities: the relation file's and those proved so far. */
  final GdEqualities equalities;
  final int[] fired;

  Context(GsModel gs, GdModel gd, AtenNormalizer normalizer, Shapes shapes, Lemmas lemmas,
      RelationTerms terms, CheckOptions options, long deadline, List<List<GdExpr>> equalities) {
    this.gs = gs;
    this.gd = gd;
    this.table = normalizer.table();
    this.shapes = shapes;
    this.analysis = new TypeAnalysis(shapes);
    this.normalizer = normalizer;
    this.lemmas = lemmas;
    this.terms = terms;
    this.options = options;
    this.deadline = deadline;
    this.equalities = new GdEqualities(equalities);
    this.fired = new int[lemmas.rewrites().size()];
  }
}
