package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Problems in lemma files are reported like a compiler's errors ({@code file:line:col: error:
 * message}, the source line, a caret), every problem of every file at once.
 */
class LemmaFileErrorsTest {
  private static final String TAIL =
      " in lemma files; fix them (or remove the file from the --lemmas folder) and run again.";

  private static String errors(String text) {
    String m = errors(Map.of("bad.lemmas", text));
    return m;
  }

  private static String errors(Map<String, String> sources) {
    return assertThrows(InputException.class, () -> LemmaLibrary.parse(sources)).getMessage();
  }

  /** The whole message for a file with exactly one problem. */
  private static String one(String position, String message, String line, int col) {
    return "bad.lemmas:"
        + position
        + ": error: "
        + message
        + "\n"
        + line
        + "\n"
        + " ".repeat(col - 1)
        + "^\n1 error"
        + TAIL;
  }

  @Test
  void aDuplicateRuleNameAcrossFilesIsRejected() {
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put("a.lemmas", "(rule r (neg ?x) ?x)");
    sources.put("bad.lemmas", "(rule r (relu ?x) ?x)");
    assertEquals(
        one("1:7", "a rule named 'r' is already defined at a.lemmas:1", "(rule r (relu ?x) ?x)", 7),
        errors(sources));
  }

  @Test
  void aRuleWithMoreVariablesThanTheMatcherBindsIsRejected() {
    StringBuilder vars = new StringBuilder();
    for (int i = 0; i <= RuleCompiler.MAX_VARIABLES; i++) {
      vars.append(" ?x").append(i);
    }
    String rule = "(rule many (sumn" + vars + ") (sumn" + vars + "))";
    assertEquals(
        one(
            "1:7",
            "rule 'many' uses 65 variables; a rule may use at most 64 (split it into smaller rules)",
            rule.substring(0, RuleError.WINDOW) + "...", // a long line: the window around the caret
            7),
        errors(rule));
    String fits = "(rule fits (sumn" + vars.substring(0, vars.lastIndexOf(" ?")) + ") ?x0)";
    assertEquals(1, LemmaLibrary.parse(Map.of("ok.lemmas", fits)).rules().size());
  }

  @Test
  void errorsOfSeveralFilesAreReportedTogether() {
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put("a.lemmas", "(rule a (neg ?x) ?y)\n");
    sources.put("b.lemmas", "(rule b (neg ?x)\n");
    sources.put("c.lemmas", "(rule c (neg ?x) ?x)\n(rule d (frob ?x) (neg ?x))\n");
    String m = errors(sources);
    assertTrue(m.startsWith("a.lemmas:1:18: error: ?y on the right side of rule 'a'"), m);
    assertTrue(m.contains("\nb.lemmas:1:1: error: this '(' is never closed\n"), m);
    assertTrue(m.contains("\nc.lemmas:2:10: error: unknown operator 'frob'\n"), m);
    assertTrue(
        m.indexOf("a.lemmas:") < m.indexOf("b.lemmas:")
            && m.indexOf("b.lemmas:") < m.indexOf("c.lemmas:"),
        m);
  }

  /**
   * Known gap: an operator variable's right-side use is not checked against the arities of its
   * family, so {@code (?f ?x ?x)} over unary operators compiles and builds {@code exp} nodes with
   * two operands (the shape rules of element-wise operators read only the first operand, so nothing
   * rejects them later either). Expected: a compile error such as "operators of family 'un' take 1
   * operand, not 2". Actual: the rule compiles and adds malformed e-nodes.
   */
}
