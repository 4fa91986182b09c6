package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/** How concats split their result: the test that two of them cut it into blocks alike. */
final class ConcatSplits {
  private ConcatSplits() {}

  /**
   * Whether two concat nodes join the same number of blocks along the same dim, the i-th blocks of
   * one size along it.
   */
  static boolean alike(EGraph<TypeInfo> g, ENode a, ENode b) {
    if (a.attr(0) != b.attr(0) || a.arity() != b.arity()) {
      return false;
    }
    int d = (int) a.attr(0);
    for (int i = 0; i < a.arity(); i++) {
      long[] sa = g.data(a.child(i)).shape();
      long[] sb = g.data(b.child(i)).shape();
      if (sa == null || sb == null || sa.length <= d || sb.length <= d || sa[d] != sb[d]) {
        return false;
      }
    }
    return true;
  }
}
