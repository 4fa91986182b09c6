package dev.entangle.rules.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Runner;
import dev.entangle.numbers.LemmaNumbers;
import dev.entangle.rules.TermReader;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The law matrix of the linear fragment: random compositions of sums across ranks, additions,
 * differences, negations, constant factors, means and replicated factors, written two ways from one
 * linear combination, are proved equal by {@code linear-forms} alone at 2, 3, 4, 8 and 16 ranks,
 * and every equality it made holds on numbers; a term written from a perturbed combination is never
 * merged with the original.
 */
class LinearLawMatrixTest {
  private static final int CASES = 40;

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 16})
  void equalCombinationsAreProvedAndHoldOnNumbers(int ranks) {
    for (int i = 0; i < CASES; i++) {
      long seed = ranks * 1000L + i;
      LinearTerms terms = new LinearTerms(seed, ranks, "2,3");
      LinearTerms.Combination c = terms.combination();
      String left = terms.write(c, 4);
      String right = terms.write(c, 4);
      String where = ranks + " ranks, case " + i + ": " + c;
      assertTrue(proved(terms, left, right), where + "\n  " + left + "\n  " + right);
      assertNumbersAgree(terms, List.of(left, right), where, seed);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 16})
  void linearMapsOfEqualCombinationsAreProved(int ranks) {
    String[][] maps = {
      {"(rsum[0 1] ", ")", "2"},
      {"(rmean[1 0] ", ")", "1 3"},
      {"(matmul ", " w)", "2 4"},
      {"(reshape[6] ", ")", "6"},
      {"(permute[1 0] ", ")", "3 2"},
      {"(mul g ", ")", "2 3"},
      {"(expand[5 2 3] ", ")", "5 2 3"},
    };
    for (int i = 0; i < CASES; i++) {
      long seed = ranks * 7000L + i;
      LinearTerms terms = new LinearTerms(seed, ranks, "2,3");
      LinearTerms.Combination c = terms.combination();
      String[] map = maps[i % maps.length];
      String whole = map[0] + terms.write(c, 3) + map[1];
      // the map applied to every monomial, the combination written over the images
      LinearTerms.Combination images = new LinearTerms.Combination();
      c.terms.forEach((m, r) -> images.add(map[0] + product(m) + map[1], r));
      String distributed = writeOver(images, map[2]);
      String where = ranks + " ranks, case " + i + ": " + c;
      assertTrue(proved(terms, whole, distributed), where + "\n  " + whole + "\n  " + distributed);
      assertNumbersAgree(terms, List.of(whole, distributed), where, seed);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 16})
  void perturbedCombinationsAreNeverMerged(int ranks) {
    for (int i = 0; i < CASES; i++) {
      long seed = ranks * 3000L + i;
      LinearTerms terms = new LinearTerms(seed, ranks, "2,3");
      LinearTerms.Combination c = terms.combination();
      LinearTerms.Combination other = terms.perturbed(c);
      String left = terms.write(c, 4);
      String right = terms.write(other, 4);
      String where = ranks + " ranks, case " + i + ": " + c + " vs " + other;
      assertFalse(proved(terms, left, right), where + "\n  " + left + "\n  " + right);
      assertNumbersAgree(terms, List.of(left, right), where, seed);
    }
  }

  /** A sum of the images, each scaled by its coefficient (a constant of the images' shape). */
  private static String writeOver(LinearTerms.Combination images, String shape) {
    StringBuilder sb = new StringBuilder("(sumn");
    images.terms.forEach(
        (m, r) ->
            sb.append(' ')
                .append(
                    r.isOne()
                        ? m
                        : "(mul "
                            + m
                            + " (expand["
                            + shape
                            + "] (scalar["
                            + r.toDouble()
                            + " f64])))"));
    String sum = sb.append(')').toString();
    return images.terms.size() == 1 ? sum.substring("(sumn ".length(), sum.length() - 1) : sum;
  }

  private static String product(String monomial) {
    String[] atoms = monomial.split(" ");
    return atoms.length == 1 ? atoms[0] : "(mul " + atoms[0] + " " + atoms[1] + ")";
  }

  /** Whether linear-forms alone merges the two terms' classes. */
  static boolean proved(LinearTerms terms, String left, String right) {
    return proved(terms.declarations(), left, right);
  }

  /** Whether linear-forms alone merges the two terms' classes, over these declarations. */
  static boolean proved(List<String> declarations, String left, String right) {
    TermReader t = new TermReader();
    declarations.forEach(t::add);
    int a = t.add(left);
    int b = t.add(right);
    EGraph<TypeInfo> g = t.graph();
    decide(g);
    return g.find(a) == g.find(b);
  }

  /** Runs linear-forms alone on the e-graph until it merges nothing more, then rebuilds it. */
  static void decide(EGraph<TypeInfo> g) {
    Runner.run(
        g,
        List.of(new LinearForms().rewrite()),
        new Runner.Limits(8, 100_000, System.nanoTime() + 60_000_000_000L, 100_000),
        () -> false);
    g.rebuild();
  }

  private static void assertNumbersAgree(
      LinearTerms terms, List<String> sides, String where, long seed) {
    List<String> all = new java.util.ArrayList<>();
    all.addAll(terms.declarations());
    all.addAll(sides);
    LemmaNumbers.Result r = LemmaNumbers.check(new LinearForms().rewrite(), all, where, seed);
    assertEquals(List.of(), r.violations(), where);
  }
}
