package dev.entangle.rules;

/**
 * A compiled lemma: when {@link #lhs} matches an e-class and every condition holds, the class
 * equals the instance of {@link #rhs}.
 *
 * <p>A rule marked {@code ifExists} (paper section 4.3.2, "constrained lemmas") only unions with a
 * right side that is already in the e-graph; it never adds nodes. One marked {@code partsExist}
 * adds only the right side's root: every term below it must already be there.
 */
public final class Rule {
  final String name;
  final String file;
  final int line;
  final String doc;
  final Pat.Node lhs;
  final Template rhs;
  final int[] letSlots;
  final Calc[] letExprs;
  final Calc[] conditions;
  final boolean ifExists;
  final boolean partsExist;
  final String[] slotNames;

  Rule(
      String name,
      String file,
      int line,
      String doc,
      Pat.Node lhs,
      Template rhs,
      int[] letSlots,
      Calc[] letExprs,
      Calc[] conditions,
      boolean ifExists,
      boolean partsExist,
      String[] slotNames) {
    this.name = name;
    this.file = file;
    this.line = line;
    this.doc = doc;
    this.lhs = lhs;
    this.rhs = rhs;
    this.letSlots = letSlots;
    this.letExprs = letExprs;
    this.conditions = conditions;
    this.ifExists = ifExists;
    this.partsExist = partsExist;
    this.slotNames = slotNames;
  }

  public String name() {
    return name;
  }

  /** The lemma file the rule is written in, as it was named when loaded. */
  public String file() {
    return file;
  }

  /** The line of its file the rule starts on. */
  public int line() {
    return line;
  }

  /** Where the rule is written, as {@code file:line}. */
  public String location() {
    return file + ":" + line;
  }

  /** The one-line comment written above the rule, or an empty string. */
  public String doc() {
    return doc;
  }

  public boolean ifExists() {
    return ifExists;
  }

  /**
   * Whether a node of the rule's pattern or template has operator {@code op}, fixed or among an
   * operator variable's choices.
   */
  public boolean mentions(int op) {
    return mentions(lhs, op) || mentions(rhs, op);
  }

  private static boolean mentions(Pat p, int op) {
    if (p instanceof Pat.Node n) {
      if (n.op() == op || (n.opChoices() != null && contains(n.opChoices(), op))) {
        return true;
      }
      for (Pat c : n.children()) {
        if (mentions(c, op)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean mentions(Template t, int op) {
    if (t instanceof Template.Node n) {
      if (n.op() == op) {
        return true;
      }
      for (Template c : n.children()) {
        if (mentions(c, op)) {
          return true;
        }
      }
    } else if (t instanceof Template.Map m) {
      return mentions(m.body(), op);
    }
    return false;
  }

  private static boolean contains(int[] ops, int op) {
    for (int o : ops) {
      if (o == op) {
        return true;
      }
    }
    return false;
  }

  int slotCount() {
    return slotNames.length;
  }

  @Override
  public String toString() {
    return name + " (" + location() + ")";
  }
}
