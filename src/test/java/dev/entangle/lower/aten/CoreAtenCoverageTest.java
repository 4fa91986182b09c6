package dev.entangle.lower.aten;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Core ATen list and the status the lowering gives each of its operators. */
class CoreAtenCoverageTest {
  @Test
  void theListIsTorchsCoreOpset() {
    List<String> ops = CoreAtenCoverage.operators();
    assertTrue(ops.size() > 150, "" + ops.size());
    assertTrue(ops.contains("aten.add.Tensor"));
    assertTrue(ops.contains("aten.native_layer_norm.default"));
    assertTrue(ops.stream().allMatch(o -> o.startsWith("aten.")), "" + ops);
  }

  @Test
  void eachOperatorGetsWhatTheLoweringDoesWithIt() {
    assertEquals("lowered (arithmetic)", CoreAtenCoverage.of("aten.add"));
    assertEquals("lowered (dropout)", CoreAtenCoverage.of("aten.native_dropout"));
    assertEquals("lowered (layout)", CoreAtenCoverage.of("aten.permute"));
    assertEquals("lowered (reductions and row-wise)", CoreAtenCoverage.of("aten._softmax"));
    assertEquals(
        "lowered: element-wise `ew1`/`ew2` with a kernel", CoreAtenCoverage.of("aten.acos"));
    assertEquals(
        "lowered (convolutions; a transposed one stays opaque)",
        CoreAtenCoverage.of("aten.convolution"));
    assertTrue(
        CoreAtenCoverage.of("aten.max_pool2d_with_indices_backward").startsWith("unsupported"));
    assertTrue(CoreAtenCoverage.of("aten.rand").startsWith("a random sample"));
    Map<String, String> all = CoreAtenCoverage.statuses();
    assertTrue(
        all.values().stream()
            .allMatch(
                s ->
                    s.startsWith("lowered")
                        || s.startsWith("unsupported")
                        || s.startsWith("element-wise")
                        || s.startsWith("a random sample")),
        "" + all);
  }
}
