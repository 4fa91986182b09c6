package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An 80 KB printed graph of repeated blocks imports whole, every block's nodes present (its speed
 * is measured by {@code scripts/bench}, which imports the real-world dumps, not here).
 */
class ImportLargeGraphTest {
  @TempDir Path dir;

  @Test
  void eightyKilobytesImportWhole() throws Exception {
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
    Graph g = GraphCodeImporter.importGraph(file, ImportOptions.defaults());
    for (String name : List.of("mm_0", "view_" + (i - 1), "cat_" + (i - 1))) {
      assertTrue(g.nodes().stream().anyMatch(n -> n.name().equals(name)), name + " missing");
    }
    assertEquals(List.of(new Arg.NodeRef(prev)), g.outputs());
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
      Graph r = GraphCodeImporter.importGraph(real, new ImportOptions(Map.of(), c, List.of()));
      assertTrue(r.nodes().size() > 100, "the real dump imports whole");
    }
  }
}
