package dev.entangle.rules.linear;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Random terms of the linear fragment with a known meaning: a linear combination of monomials
 * (sorted lists of atom texts) with rational coefficients, written as a term in one of many ways
 * (sums across ranks split and grouped at random, constant factors moved out, negations,
 * differences, means, common factors pulled out of products). Two terms written from one
 * combination are equal; a term written from a perturbed combination is not.
 */
final class LinearTerms {
  private static final long[][] COEFFICIENTS = {
    {1, 1}, {2, 1}, {-1, 1}, {1, 2}, {3, 1}, {-3, 4}, {1, 3}, {5, 8}, {1, 16}, {-2, 1}
  };

  private final SplittableRandom random;
  private final int ranks;
  private final String dims;

  /** A combination: monomial (sorted atom texts, joined by a space) to coefficient. */
  static final class Combination {
    final TreeMap<String, Rational> terms = new TreeMap<>();

    Combination add(String monomial, Rational c) {
      terms.merge(monomial, c, Rational::plus);
      if (terms.get(monomial).isZero()) {
        terms.remove(monomial);
      }
      return this;
    }

    Combination times(Rational c) {
      Combination out = new Combination();
      terms.forEach((m, r) -> out.add(m, r.times(c)));
      return out;
    }

    Combination plus(Combination o) {
      Combination out = new Combination();
      terms.forEach(out::add);
      o.terms.forEach(out::add);
      return out;
    }

    @Override
    public String toString() {
      return terms.toString();
    }
  }

  /**
   * @param seed the random seed
   * @param ranks how many ranks hold a part ({@code a0 ... a(n-1)}, {@code b0 ...})
   * @param shape the leaves' shape, e.g. {@code 2,3}
   */
  LinearTerms(long seed, int ranks, String shape) {
    this.random = new SplittableRandom(seed);
    this.ranks = ranks;
    this.dims = shape;
  }

  /** Every leaf, declared (the first terms to add), and the matrix w:f64[3,4]. */
  List<String> declarations() {
    List<String> out = new ArrayList<>();
    for (int r = 0; r < ranks; r++) {
      out.add("a" + r + ":f64[" + dims + "]");
      out.add("b" + r + ":f64[" + dims + "]");
    }
    out.add("g:f64[" + dims + "]");
    out.add("h:f64[" + dims + "]");
    out.add("w:f64[3,4]");
    return out;
  }

  /**
   * A random combination over the ranks' parts and the replicated g and h: sums across ranks of
   * per-rank terms, some scaled, some multiplied by a replicated factor, a replicated term counted
   * once or on every rank.
   */
  Combination combination() {
    Combination c = new Combination();
    int kinds = 1 + random.nextInt(3);
    for (int k = 0; k < kinds; k++) {
      String part = random.nextBoolean() ? "a" : "b";
      String factor = random.nextInt(3) == 0 ? (random.nextBoolean() ? "g" : "h") : null;
      Rational coef = coefficient();
      for (int r = 0; r < ranks; r++) {
        if (random.nextInt(8) == 0) {
          continue; // a rank whose part is missing from the sum
        }
        c.add(monomial(part + r, factor), coef);
      }
    }
    if (random.nextInt(3) == 0) {
      c.add(random.nextBoolean() ? "g" : "h", coefficient());
    }
    return c;
  }

  private static String monomial(String x, String factor) {
    if (factor == null) {
      return x;
    }
    return x.compareTo(factor) < 0 ? x + " " + factor : factor + " " + x;
  }

  Rational coefficient() {
    long[] c = COEFFICIENTS[random.nextInt(COEFFICIENTS.length)];
    return Rational.of(c[0], c[1]);
  }

  /** The combination changed so that it is no longer equal: one coefficient off, or one term. */
  Combination perturbed(Combination c) {
    Combination out = new Combination().plus(c);
    List<String> ms = new ArrayList<>(c.terms.keySet());
    switch (ms.isEmpty() ? 2 : random.nextInt(3)) {
      case 0 -> out.add(ms.get(random.nextInt(ms.size())), Rational.ONE);
      case 1 -> {
        String m = ms.get(random.nextInt(ms.size()));
        out.add(m, c.terms.get(m).negate());
      }
      default -> out.add("a" + random.nextInt(ranks), Rational.of(random.nextBoolean() ? 1 : -1));
    }
    return out;
  }

  /** A term whose value is the combination, written at random. */
  String write(Combination c, int depth) {
    if (c.terms.isEmpty()) {
      return "(mul g " + constant(Rational.ZERO) + ")";
    }
    if (c.terms.size() == 1 && (depth <= 0 || random.nextInt(3) == 0)) {
      Map.Entry<String, Rational> e = c.terms.firstEntry();
      return scaled(product(e.getKey()), e.getValue());
    }
    if (depth <= 0) {
      return split(c, depth);
    }
    return switch (random.nextInt(7)) {
      case 0 -> {
        Rational f = coefficient();
        yield random.nextBoolean()
            ? "(mul " + write(c.times(f.reciprocal()), depth - 1) + " " + constant(f) + ")"
            : "(div " + write(c.times(f), depth - 1) + " " + constant(f) + ")";
      }
      case 1 -> "(neg " + write(c.times(Rational.of(-1)), depth - 1) + ")";
      case 2 -> {
        Combination[] parts = halves(c);
        yield "(sub "
            + write(parts[0], depth - 1)
            + " "
            + write(parts[1].times(Rational.of(-1)), depth - 1)
            + ")";
      }
      case 3 -> mean(c, depth);
      case 4 -> factored(c, depth);
      default -> split(c, depth);
    };
  }

  /** A sum across ranks of the parts, or nested additions. */
  private String split(Combination c, int depth) {
    if (c.terms.size() == 1) {
      Map.Entry<String, Rational> e = c.terms.firstEntry();
      if (depth > 0 && random.nextBoolean()) {
        Rational half = e.getValue().times(Rational.of(1, 2));
        Combination h = new Combination().add(e.getKey(), half);
        return "(add " + write(h, depth - 1) + " " + write(h, depth - 1) + ")";
      }
      return scaled(product(e.getKey()), e.getValue());
    }
    List<Combination> groups = groups(c);
    if (groups.size() == 2 && random.nextBoolean()) {
      return "(add "
          + write(groups.get(0), depth - 1)
          + " "
          + write(groups.get(1), depth - 1)
          + ")";
    }
    StringBuilder sb = new StringBuilder("(sumn");
    for (Combination g : groups) {
      sb.append(' ').append(write(g, depth - 1));
    }
    return sb.append(')').toString();
  }

  /** The average of k copies of the combination, each written its own way. */
  private String mean(Combination c, int depth) {
    int k = 2 + random.nextInt(Math.min(ranks, 4) - 1);
    StringBuilder sb = new StringBuilder("(div (sumn");
    for (int i = 0; i < k; i++) {
      sb.append(' ').append(write(c, depth - 1));
    }
    return sb.append(") ").append(constant(Rational.of(k))).append(')').toString();
  }

  /** A factor every monomial holds, pulled out of the sum (else a split). */
  private String factored(Combination c, int depth) {
    for (String f : new String[] {"g", "h"}) {
      Combination rest = new Combination();
      boolean all = true;
      for (Map.Entry<String, Rational> e : c.terms.entrySet()) {
        List<String> atoms = new ArrayList<>(List.of(e.getKey().split(" ")));
        all &= atoms.size() > 1 && atoms.remove(f);
        if (all) {
          rest.add(String.join(" ", atoms), e.getValue());
        }
      }
      if (all) {
        String inner = write(rest, depth - 1);
        return random.nextBoolean()
            ? "(mul " + inner + " " + f + ")"
            : "(mul " + f + " " + inner + ")";
      }
    }
    return split(c, depth);
  }

  private List<Combination> groups(Combination c) {
    int k = 2 + random.nextInt(Math.min(c.terms.size(), 4) - 1);
    List<Combination> groups = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      groups.add(new Combination());
    }
    int i = 0;
    for (Map.Entry<String, Rational> e : c.terms.entrySet()) {
      int at = i < k ? i : random.nextInt(k);
      groups.get(at).add(e.getKey(), e.getValue());
      i++;
    }
    return groups;
  }

  private Combination[] halves(Combination c) {
    if (c.terms.size() == 1) {
      Combination third = c.times(Rational.of(1, 3));
      return new Combination[] {third, c.times(Rational.of(2, 3))};
    }
    List<Combination> g = groups(c);
    Combination rest = new Combination();
    for (int i = 1; i < g.size(); i++) {
      rest = rest.plus(g.get(i));
    }
    return new Combination[] {g.get(0), rest};
  }

  private String product(String monomial) {
    String[] atoms = monomial.split(" ");
    if (atoms.length == 1) {
      return atoms[0];
    }
    return random.nextBoolean()
        ? "(mul " + atoms[0] + " " + atoms[1] + ")"
        : "(mul " + atoms[1] + " " + atoms[0] + ")";
  }

  private String scaled(String term, Rational c) {
    if (c.isOne()) {
      return term;
    }
    if (c.equals(Rational.of(-1)) && random.nextBoolean()) {
      return "(neg " + term + ")";
    }
    return random.nextBoolean()
        ? "(mul " + term + " " + constant(c) + ")"
        : "(mul " + constant(c) + " " + term + ")";
  }

  /** A constant of the leaves' shape. */
  String constant(Rational c) {
    return "(expand[" + dims.replace(",", " ") + "] (scalar[" + c.toDouble() + " f64]))";
  }
}
