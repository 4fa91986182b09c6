package dev.entangle.egraph;

/** What a pattern node requires of one attribute: a literal, a variable, or anything. */
public sealed interface AttrPattern permits AttrPattern.Lit, AttrPattern.Var, AttrPattern.Any {
  /** Matches exactly this value. */
  record Lit(long value) implements AttrPattern {
    @Override
    public String toString() {
      return Long.toString(value);
    }
  }

  /** Matches any value and binds it; a repeated variable requires equal values. */
  record Var(String name) implements AttrPattern {
    public Var {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("an attribute variable needs a non-empty name");
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Matches any value without binding it; cannot be instantiated. */
  record Any() implements AttrPattern {
    @Override
    public String toString() {
      return "_";
    }
  }

  static AttrPattern lit(long value) {
    return new Lit(value);
  }

  static AttrPattern var(String name) {
    return new Var(name);
  }

  static AttrPattern any() {
    return new Any();
  }
}
