package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.entangle.util.InputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged graph code is either read or rejected with an InputException, never anything else. */
class DamagedInputTest {
  private static final String PIECES = "()[]{},:;.=+-*/\"'#\n x0_[]Sym(";

  @TempDir Path dir;

  @Test
  void randomDamageNeverEscapesAsAnotherException() throws Exception {
    String sample =
        Snippets.module(
            "x: \"f32[4, 8]\", s0: \"Sym(s0)\"",
            "# File: /src/m.py:3 in forward, code: y = f(x)",
            "native_dropout = torch.ops.aten.native_dropout.default(x, 0.1, True)",
            "getitem: \"f32[4, 8]\" = native_dropout[0]",
            "view: \"f32[s0, 2]\" = torch.ops.aten.view.default(getitem, [s0 + 1, -1]);  getitem = None",
            "_tensor_constant0 = self._tensor_constant0",
            "lift: \"f32[]\" = torch.ops.aten.lift_fresh_copy.default(_tensor_constant0)",
            "af = torch.ops.higher_order.auto_functionalized(torch.ops._C.rms_norm.default,"
                + " result = x, input = x, weight = x, epsilon = 1e-06)",
            "getitem_1: \"f32[4, 8]\" = af[1]",
            "return (view, lift, getitem_1)");
    check(sample, 400, new Random(7));
    Path real = RealWorldImportTest.ROOT.resolve("qwen2-tp2/gd.r0.py");
    if (Files.exists(real)) {
      check(Files.readString(real), 150, new Random(11));
    }
  }

  private void check(String text, int rounds, Random rnd) {
    ImportOptions opts = new ImportOptions(Map.of(), Map.of("_tensor_constant0", 0.0), List.of());
    int rejected = 0;
    for (int k = 0; k < rounds; k++) {
      StringBuilder sb = new StringBuilder(text);
      for (int edits = 1 + rnd.nextInt(3); edits > 0; edits--) {
        int at = rnd.nextInt(sb.length());
        switch (rnd.nextInt(3)) {
          case 0 -> sb.deleteCharAt(at);
          case 1 -> sb.insert(at, PIECES.charAt(rnd.nextInt(PIECES.length())));
          default -> sb.setCharAt(at, PIECES.charAt(rnd.nextInt(PIECES.length())));
        }
      }
      Path file = Snippets.write(dir, "damaged.py", sb.toString());
      try {
        GraphCodeImporter.importGraph(file, opts);
      } catch (InputException e) {
        rejected++;
        assertTrue(
            e.getMessage().startsWith(file.toString()) || e.getMessage().startsWith("--constant"),
            e.getMessage());
      } catch (RuntimeException | StackOverflowError e) {
        fail("damaged input raised " + e + " for:\n" + sb, e);
      }
    }
    assertTrue(rejected > 0);
  }
}
