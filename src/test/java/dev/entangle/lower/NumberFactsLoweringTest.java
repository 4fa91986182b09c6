package dev.entangle.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.OpTable;
import dev.entangle.core.ValueKind;
import dev.entangle.importer.hlo.HloImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guards a lowering folds by what it knows of the numbers ({@link
 * dev.entangle.core.NumberFacts}): a test of finiteness of a value that cannot be infinite, a
 * comparison with an infinity, a {@code where} on a mask so decided, and the absolute value of what
 * is never negative; and the guards it keeps, where an infinity or a negative number can come.
 */
class NumberFactsLoweringTest {
  @TempDir Path dir;

  private CoreProgram program;

  /** Lowers an ENTRY computation of these instruction lines; returns each value's dumped line. */
  private Map<String, String> lower(String... lines) throws IOException {
    String text =
        "HloModule m\n\n"
            + "%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            + "  ROOT %s = f32[] maximum(%a, %b)\n}\n\n"
            + "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
            + "  ROOT %s = f32[] add(%a, %b)\n}\n\n"
            + "ENTRY %main () -> f32[] {\n  "
            + String.join("\n  ", lines)
            + "\n}\n";
    Path f = Files.writeString(dir.resolve("m.hlo"), text);
    program = Lowering.sequential(HloImporter.importGraph(f), new OpTable());
    return DumpedLines.of(program);
  }

  /** Asserts that value {@code name} was lowered to a line starting with {@code start}. */
  private static void lowered(Map<String, String> t, String name, String start) {
    assertTrue(t.get(name).startsWith(start), name + ": " + t.get(name));
  }

  private ValueKind kind(String name) {
    for (CoreValue v : program.values()) {
      if (v.name().equals(name)) {
        return v.kind();
      }
    }
    throw new AssertionError("no value " + name);
  }

  /** JAX's logsumexp of logits x·w, as jax.nn.logsumexp writes it. */
  private static final String[] LOGSUMEXP = {
    "%x = f32[4,6]{1,0} parameter(0)",
    "%w = f32[6,8]{1,0} parameter(1)",
    "%logits = f32[4,8]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
    "%ninf = f32[] constant(-inf)",
    "%rmax = f32[4]{0} reduce(%logits, %ninf), dimensions={1}, to_apply=%max",
    "%ninfs = f32[4]{0} broadcast(%ninf), dimensions={}",
    "%m = f32[4]{0} maximum(%rmax, %ninfs)",
    "%fin = pred[4]{0} is-finite(%m)",
    "%zero = f32[] constant(0)",
    "%zeros = f32[4]{0} broadcast(%zero), dimensions={}",
    "%shift = f32[4]{0} select(%fin, %m, %zeros)",
    "%shifts = f32[4,8]{1,0} broadcast(%shift), dimensions={0}",
    "%d = f32[4,8]{1,0} subtract(%logits, %shifts)",
    "%e = f32[4,8]{1,0} exponential(%d)",
    "%s = f32[4]{0} reduce(%e, %zero), dimensions={1}, to_apply=%add",
    "%a = f32[4]{0} abs(%s)",
    "%l = f32[4]{0} log(%a)",
    "%lse = f32[4]{0} add(%l, %shift)"
  };

  @Test
  void logSumExpsGuardsOnFiniteLogitsAreFolded() throws IOException {
    Map<String, String> t = lower(LOGSUMEXP);
    lowered(t, "fin", "bool[4] = expand[4](scalar[1.0, bool])");
    assertEquals(ValueKind.CONSTANT, kind("fin"), "decided, it reads nothing");
    lowered(t, "shift", "float32[4] = m ");
    lowered(t, "a", "float32[4] = s ");
    lowered(t, "lse", "float32[4] = add(l, shift)");
  }

  @Test
  void aMaxThatMayBeInfiniteKeepsItsGuard() throws IOException {
    // a row masked with -inf before its max: the max of a fully masked row is -inf
    Map<String, String> t =
        lower(
            "%x = f32[4,8]{1,0} parameter(0)",
            "%keep = pred[4,8]{1,0} parameter(1)",
            "%ninf = f32[] constant(-inf)",
            "%ninfs = f32[4,8]{1,0} broadcast(%ninf), dimensions={}",
            "%masked = f32[4,8]{1,0} select(%keep, %x, %ninfs)",
            "%m = f32[4]{0} reduce(%masked, %ninf), dimensions={1}, to_apply=%max",
            "%fin = pred[4]{0} is-finite(%m)",
            "%inf = f32[] constant(inf)",
            "%infs = f32[4]{0} broadcast(%inf), dimensions={}",
            "%big = f32[4]{0} maximum(%m, %infs)",
            "%finbig = pred[4]{0} is-finite(%big)",
            "%lg = f32[4]{0} log(%m)",
            "%finlog = pred[4]{0} is-finite(%lg)",
            "%q = f32[4]{0} divide(%m, %m)",
            "%finq = pred[4]{0} is-finite(%q)",
            "%y = f32[4]{0} parameter(2)",
            "%ay = f32[4]{0} abs(%y)");
    for (String guard : new String[] {"fin", "finbig", "finlog", "finq"}) {
      assertTrue(t.get(guard).contains("ew1["), guard + ": " + t.get(guard));
      assertEquals(ValueKind.COMPUTED, kind(guard), guard);
    }
    lowered(t, "ay", "float32[4] = abs(y)");
  }

  @Test
  void comparisonsOfAFiniteValueWithInfinitiesAndItselfAreDecided() throws IOException {
    // torch's logsumexp: maxes.masked_fill(maxes.abs() == inf, 0); JAX's isnan: x != x
    Map<String, String> t =
        lower(
            "%x = f32[4,8]{1,0} parameter(0)",
            "%ninf = f32[] constant(-inf)",
            "%m = f32[4]{0} reduce(%x, %ninf), dimensions={1}, to_apply=%max",
            "%am = f32[4]{0} abs(%m)",
            "%inf = f32[] constant(inf)",
            "%infs = f32[4]{0} broadcast(%inf), dimensions={}",
            "%isinf = pred[4]{0} compare(%am, %infs), direction=EQ",
            "%below = pred[4]{0} compare(%m, %infs), direction=LT",
            "%zero = f32[] constant(0)",
            "%zeros = f32[4]{0} broadcast(%zero), dimensions={}",
            "%shift = f32[4]{0} select(%isinf, %zeros, %m)",
            "%isnan = pred[4]{0} compare(%m, %m), direction=NE",
            "%y = f32[4]{0} parameter(1)",
            "%open = pred[4]{0} compare(%y, %infs), direction=LT");
    lowered(t, "isinf", "bool[4] = expand[4](scalar[0.0, bool])");
    lowered(t, "below", "bool[4] = expand[4](scalar[1.0, bool])");
    lowered(t, "shift", "float32[4] = m ");
    lowered(t, "isnan", "bool[4] = expand[4](scalar[0.0, bool])");
    // an input is read as finite numbers, as the numbers the checker draws are
    lowered(t, "open", "bool[4] = expand[4](scalar[1.0, bool])");
  }

  @Test
  void theSignOfASumOfExponentialsIsDecided() throws IOException {
    // JAX's derivative of log(abs(s)) tests s >= 0; a sum of exponentials is at least 0 or +inf
    String[] lines = java.util.Arrays.copyOf(LOGSUMEXP, LOGSUMEXP.length + 7);
    int i = LOGSUMEXP.length;
    lines[i++] = "%zeros2 = f32[4]{0} broadcast(%zero), dimensions={}";
    lines[i++] = "%sign = pred[4]{0} compare(%s, %zeros2), direction=GE";
    lines[i++] = "%neg = pred[4]{0} compare(%s, %zeros2), direction=LT";
    lines[i++] = "%pos = pred[4]{0} compare(%zeros2, %s), direction=LT";
    lines[i++] = "%m1 = f32[] constant(-1)";
    lines[i++] = "%m1s = f32[4]{0} broadcast(%m1), dimensions={}";
    lines[i++] = "%above = pred[4]{0} compare(%s, %m1s), direction=GT";
    Map<String, String> t = lower(lines);
    lowered(t, "sign", "bool[4] = expand[4](scalar[1.0, bool])");
    lowered(t, "neg", "bool[4] = expand[4](scalar[0.0, bool])");
    lowered(t, "above", "bool[4] = expand[4](scalar[1.0, bool])");
    // whether it is above 0 depends on the sum (every exponential may underflow to 0)
    lowered(t, "pos", "bool[4] = lt(");
  }

  @Test
  void whatMayBeNaNHasNoSignDecided() throws IOException {
    // the square root of a difference is NaN where it is negative; exp(a) times b is NaN where an
    // overflowed exponential meets a 0; a NaN compares false with everything
    Map<String, String> t =
        lower(
            "%x = f32[4]{0} parameter(0)",
            "%y = f32[4]{0} parameter(1)",
            "%d = f32[4]{0} subtract(%x, %y)",
            "%r = f32[4]{0} sqrt(%d)",
            "%ar = f32[4]{0} abs(%r)",
            "%zero = f32[] constant(0)",
            "%zeros = f32[4]{0} broadcast(%zero), dimensions={}",
            "%rsign = pred[4]{0} compare(%r, %zeros), direction=GE",
            "%e = f32[4]{0} exponential(%x)",
            "%sq = f32[4]{0} multiply(%y, %y)",
            "%p = f32[4]{0} multiply(%e, %sq)",
            "%psign = pred[4]{0} compare(%p, %zeros), direction=GE",
            "%half = f32[] constant(0.5)",
            "%halves = f32[4]{0} broadcast(%half), dimensions={}",
            "%h = f32[4]{0} multiply(%e, %halves)",
            "%hsign = pred[4]{0} compare(%h, %zeros), direction=GE");
    lowered(t, "ar", "float32[4] = abs(r)");
    lowered(t, "rsign", "bool[4] = ge(");
    lowered(t, "psign", "bool[4] = ge(");
    // half an exponential: no 0 meets an infinity
    lowered(t, "hsign", "bool[4] = expand[4](scalar[1.0, bool])");
  }
}
