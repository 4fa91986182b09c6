package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An 80 KB printed graph imports in well under 100 ms once the JIT has warmed up. */
class ImportSpeedTest {
  private static final long LIMIT_NANOS = 100_000_000L;

  @TempDir Path dir;

  @Test
  void eightyKilobytesImportQuickly() throws Exception {
    StringBuilder sb = new StringBuilder(Snippets.PRELUDE);
    sb.append("    def forward(self, x: \"f32[1536, 8, 768]\", w: \"f32[768, 768]\"):\n");
    String prev = "x";
    int i = 0;
    while (sb.length() < 80_000) {
      sb.append("        # File: /src/megatron/core/transformer/mlp.py:")
          .append(100 + i)
          .append(" in forward, code: h = self.linear_fc")
          .append(i)
          .append("(h)\n");
      sb.append("        view_")
          .append(i)
          .append(": \"f32[12288, 768]\" = torch.ops.aten.view.default(")
          .append(prev)
          .append(", [12288, 768]);  ")
          .append(prev.equals("x") ? "x" : prev)
          .append(" = None\n");
      sb.append("        mm_")
          .append(i)
          .append(": \"f32[12288, 768]\" = torch.ops.aten.mm.default(view_")
          .append(i)
          .append(", w);  view_")
          .append(i)
          .append(" = None\n");
      sb.append("        split_")
          .append(i)
          .append(" = torch.ops.aten.split_with_sizes.default(mm_")
          .append(i)
          .append(", [384, 384], -1)\n");
      sb.append("        getitem_")
          .append(i)
          .append(": \"f32[12288, 384]\" = split_")
          .append(i)
          .append("[0]\n");
      sb.append("        cat_")
          .append(i)
          .append(": \"f32[1536, 8, 768]\" = torch.ops.aten.view.default(mm_")
          .append(i)
          .append(", [1536, 8, -1])\n");
      prev = "cat_" + i;
      i++;
    }
    sb.append("        return (").append(prev).append(",)\n");
    Path file = Snippets.write(dir, "big.py", sb.toString());
    assertTrue(Files.size(file) >= 80_000);
    assertFast(file, ImportOptions.defaults());
    Path real = RealWorldImportTest.ROOT.resolve("bug-missing-allreduce-wrong-config/gd.r0.py");
    if (Files.exists(real)) {
      Map<String, Double> c =
          Map.of(
              "_tensor_constant0",
              0.0,
              "_tensor_constant1",
              0.0,
              "_tensor_constant2",
              0.0,
              "_tensor_constant3",
              0.0);
      assertFast(real, new ImportOptions(Map.of(), c, List.of()));
    }
  }

  private static void assertFast(Path file, ImportOptions opts) {
    for (int k = 0; k < 30; k++) {
      GraphCodeImporter.importGraph(file, opts);
    }
    long[] times = new long[15];
    for (int k = 0; k < times.length; k++) {
      long t0 = System.nanoTime();
      GraphCodeImporter.importGraph(file, opts);
      times[k] = System.nanoTime() - t0;
    }
    Arrays.sort(times);
    long median = times[times.length / 2];
    assertTrue(median < LIMIT_NANOS, file + " took " + median / 1_000_000 + " ms (median)");
  }
}
