package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.List;

/**
 * Two concats along one dim that are equal, and whose parts have the same sizes along it, are equal
 * part by part: {@code concat(a, b) = concat(c, d)} with {@code a} and {@code c} of one size gives
 * {@code a = c} and {@code b = d}. This is how two relations of one G_s tensor (replicas of a
 * key/value head on different ranks, say) tell which G_d pieces are equal. It only unions existing
 * classes, so it adds no term.
 */
final class ConcatParts implements NativeRule<ConcatParts.Parts> {
  static final String NAME = "concat-parts";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "equal concats along one dim with parts of the same sizes are equal part by part";
  }

  /** Two parts at one position of equal concats: classes to make equal. */
  record Parts(int a, int b) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Parts> found) {
    for (int c : g.classesWithOp(Op.CONCAT.id())) {
      deadline.poll();
      List<ENode> cats = new ArrayList<>();
      for (ENode n : g.nodes(c)) {
        if (n.op() == Op.CONCAT.id()) {
          cats.add(n);
        }
      }
      for (int i = 0; i < cats.size(); i++) {
        for (int j = i + 1; j < cats.size(); j++) {
          ENode a = cats.get(i);
          ENode b = cats.get(j);
          if (sameParts(g, a, b)) {
            for (int k = 0; k < a.arity(); k++) {
              int x = a.child(k);
              int y = b.child(k);
              if (g.find(x) != g.find(y)) {
                found.match(new Parts(x, y));
              }
            }
          }
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Parts match, Unions unions) {
    unions.union(match.a(), match.b());
  }

  private static boolean sameParts(EGraph<TypeInfo> g, ENode a, ENode b) {
    if (a.attr(0) != b.attr(0) || a.arity() != b.arity()) {
      return false;
    }
    int d = (int) a.attr(0);
    for (int k = 0; k < a.arity(); k++) {
      TypeInfo x = g.data(a.child(k));
      TypeInfo y = g.data(b.child(k));
      if (x.shape()[d] != y.shape()[d] || x.dtype() != y.dtype()) {
        return false; // a concat of mixed dtypes promotes, which may round: parts equal only as
        // promoted
      }
    }
    return true;
  }
}
