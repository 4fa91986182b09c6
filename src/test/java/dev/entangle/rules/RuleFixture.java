package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * A few rules written inline, a typed e-graph to try them on, and readable views of what the
 * matcher binds and what the applier computes.
 */
final class RuleFixture {
  static final String FILE = "test.lemmas";

  final Lemmas lemmas;
  final TermReader terms = new TermReader();

  RuleFixture(String lemmaText) {
    lemmas = LemmaLibrary.parse(Map.of(FILE, lemmaText));
  }

  EGraph<TypeInfo> graph() {
    return terms.graph();
  }

  int add(String term) {
    return terms.add(term);
  }

  Rule rule(String name) {
    return lemmas.rules().stream()
        .filter(r -> r.name().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new IllegalArgumentException("no rule " + name + " in " + lemmas.names()));
  }

  /** Every match of the rule at the class, each rendered as {@code x=a xs=[b, c] d=0}. */
  List<String> matches(String ruleName, int cls) {
    Rule r = rule(ruleName);
    List<String> out = new ArrayList<>();
    new RuleMatcher(graph()).searchClass(r, cls, (c, b) -> out.add(render(r, (Object[]) b)));
    return out;
  }

  /** The classes the rule matches anywhere in the e-graph, by the name of each. */
  List<String> matchedClasses(String ruleName) {
    List<String> out = new ArrayList<>();
    new RuleMatcher(graph()).search(rule(ruleName), (c, b) -> out.add(terms.nameOf(c)));
    return out;
  }

  /**
   * Applies the rule to its first match at the class: the class the right side built or found, or
   * -1 when a condition failed, a value did not apply or the right side was absent.
   */
  int applyFirst(String ruleName, int cls) {
    Rule r = rule(ruleName);
    List<Object[]> found = new ArrayList<>();
    new RuleMatcher(graph()).searchClass(r, cls, (c, b) -> found.add((Object[]) b));
    if (found.isEmpty()) {
      throw new AssertionError(ruleName + " does not match " + terms.nameOf(cls));
    }
    return new RuleApplier(graph()).apply(r, found.get(0));
  }

  /**
   * The value of {@code expr} for the first match of {@code pattern} (which binds {@code ?x}) at
   * the term, rendered; {@code "no match"} when the expression does not apply.
   */
  static String value(String pattern, String expr, String term) {
    RuleFixture f = new RuleFixture("(rule probe " + pattern + " ?x :let ((?v " + expr + ")))");
    int cls = f.add(term);
    Rule r = f.rule("probe");
    List<Object[]> found = new ArrayList<>();
    new RuleMatcher(f.graph()).searchClass(r, cls, (c, b) -> found.add((Object[]) b));
    if (found.isEmpty()) {
      throw new AssertionError(pattern + " does not match " + term);
    }
    Object[] b = found.get(0);
    if (new RuleApplier(f.graph()).apply(r, b) < 0) {
      return "no match";
    }
    return f.renderValue(b[Arrays.asList(r.slotNames).indexOf("v")]);
  }

  String render(Rule r, Object[] b) {
    StringJoiner sj = new StringJoiner(" ");
    for (int i = 0; i < r.slotNames.length; i++) {
      sj.add(r.slotNames[i] + "=" + renderValue(b[i]));
    }
    return sj.toString();
  }

  String renderValue(Object v) {
    if (v == null) {
      return "unbound";
    }
    if (v instanceof Integer c) {
      return terms.nameOf(c);
    }
    if (v instanceof int[] cs) {
      StringJoiner sj = new StringJoiner(", ", "[", "]");
      for (int c : cs) {
        sj.add(terms.nameOf(c));
      }
      return sj.toString();
    }
    if (v instanceof long[] l) {
      return Arrays.toString(l);
    }
    if (v instanceof OpBinding ob) {
      return Op.of(ob.op()).symbol() + Arrays.toString(ob.attrs());
    }
    return v.toString();
  }
}
