package dev.entangle.egraph;

import java.util.Objects;
import java.util.Set;

/**
 * A named rule: where the left pattern matches and the condition holds, the applier runs. A rule
 * whose applier reads a variable the left side does not bind is rejected here, when it is built.
 */
public final class Rewrite {
  private final String name;
  private final Pattern lhs;
  private final Condition condition;
  private final Applier applier;
  private final Matcher matcher;

  /** An unconditional rule. */
  public Rewrite(String name, Pattern lhs, Applier applier) {
    this(name, lhs, Condition.always(), applier);
  }

  /**
   * @throws IllegalArgumentException when the name is empty or the applier uses a variable that
   *     {@code lhs} does not bind
   */
  public Rewrite(String name, Pattern lhs, Condition condition, Applier applier) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a rewrite needs a name");
    }
    this.name = name;
    this.lhs = Objects.requireNonNull(lhs, "lhs");
    this.condition = Objects.requireNonNull(condition, "condition");
    this.applier = Objects.requireNonNull(applier, "applier");
    Set<String> cls = lhs.classVars();
    for (String v : applier.classVars()) {
      if (!cls.contains(v)) {
        throw new IllegalArgumentException(
            "rewrite "
                + name
                + ": the right side uses class variable ?"
                + v
                + " that the left side does not bind");
      }
    }
    Set<String> attrs = lhs.attrVars();
    for (String v : applier.attrVars()) {
      if (!attrs.contains(v)) {
        throw new IllegalArgumentException(
            "rewrite "
                + name
                + ": the right side uses attribute variable "
                + v
                + " that the left side does not bind");
      }
    }
    this.matcher = new Matcher(lhs);
  }

  /** The rule {@code lhs => rhs}. */
  public static Rewrite of(String name, Pattern lhs, Pattern rhs) {
    return new Rewrite(name, lhs, new PatternApplier(rhs));
  }

  public String name() {
    return name;
  }

  public Pattern lhs() {
    return lhs;
  }

  public Condition condition() {
    return condition;
  }

  public Applier applier() {
    return applier;
  }

  Matcher matcher() {
    return matcher;
  }

  @Override
  public String toString() {
    return name + ": " + lhs + " => " + applier;
  }
}
