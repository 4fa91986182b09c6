package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Rewrite;
import java.util.ArrayList;
import java.util.List;

/**
 * A loaded lemma library: the rules written in lemma files and the native lemmas they enable, and
 * the same as rewrites for the {@link dev.entangle.egraph.Runner}.
 */
public record Lemmas(
    List<Rule> rules, List<NativeRule<?>> natives, List<Rewrite<TypeInfo>> rewrites) {
  public Lemmas(List<Rule> rules, List<NativeRule<?>> natives) {
    this(List.copyOf(rules), List.copyOf(natives), rewritesOf(rules, natives));
  }

  public Lemmas {
    rules = List.copyOf(rules);
    natives = List.copyOf(natives);
    rewrites = List.copyOf(rewrites);
  }

  /** Every lemma's name, rules first, in the order of {@link #rewrites}. */
  public List<String> names() {
    return rewrites.stream().map(Rewrite::name).toList();
  }

  /**
   * Whether some rule's pattern or template has a node of operator {@code op} (and so may read its
   * attributes). Natives are not asked: each is written to look at leaves' operators only.
   */
  public boolean mention(int op) {
    for (Rule r : rules) {
      if (r.mentions(op)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Rules first, then natives: natives see the rules' additions of the same iteration. Rules are
   * searched incrementally ({@link RuleSearcher}); natives search the whole e-graph.
   */
  private static List<Rewrite<TypeInfo>> rewritesOf(List<Rule> rules, List<NativeRule<?>> natives) {
    List<Rewrite<TypeInfo>> out = new ArrayList<>();
    for (Rule r : rules) {
      out.add(
          new Rewrite<>(
              r.name(),
              new RuleSearcher(r),
              (g, cls, bindings, unions) -> {
                int rhs = new RuleApplier(g).apply(r, (Object[]) bindings);
                if (rhs >= 0) {
                  unions.union(cls, rhs);
                }
              }));
    }
    for (NativeRule<?> n : natives) {
      out.add(n.rewrite());
    }
    return out;
  }
}
