package dev.entangle.lower.aten;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.graph.GraphJson;
import dev.entangle.lower.LoweredTerms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code aten.convolution} and {@code aten.convolution_backward} as traced from {@code F.conv2d}
 * (the examples' graphs), lowered to {@code conv} and its gradients; a transposed convolution stays
 * opaque.
 */
class ConvolutionLoweringTest {
  @TempDir Path dir;

  private static Map<String, String> lowered(Path gs) {
    return LoweredTerms.of(GraphJson.readGraph(gs));
  }

  @Test
  void aConvolutionWithBiasIsConvPlusTheBroadcastBias() {
    Map<String, String> t = lowered(Path.of("examples/conv-in-channels-tp2/gs.json"));
    // [groups 1, 2 spatial dims, strides 1 1, paddings 1 1, dilations 1 1]
    assertEquals(
        "(add (conv[1 2 1 1 1 1 1 1] x weight) (expand[2 3 5 5] (reshape[1 3 1 1] bias)))",
        t.get("convolution"));
  }

  @Test
  void theBackwardGivesBothGradientsAndTheBiasSum() {
    Map<String, String> t = lowered(Path.of("examples/dp-conv-grads-dp2/gs.json"));
    String[] items = t.get("convolution_backward").split(" \\| ");
    assertEquals(3, items.length);
    // the incoming gradient: mse_loss_backward's term
    String gy = t.get("mse_loss_backward");
    // the attributes, then the input's spatial sizes (4 4) or the kernel's (3 3)
    assertEquals("(conv_input_grad[1 2 1 1 1 1 1 1 4 4] " + gy + " weight)", items[0]);
    assertEquals("(conv_weight_grad[1 2 1 1 1 1 1 1 3 3] x " + gy + ")", items[1]);
    assertEquals("(rsum[0 0 2 3] " + gy + ")", items[2]);
  }

  @Test
  void aTransposedConvolutionStaysOpaque() throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode g =
        (ObjectNode) json.readTree(Path.of("examples/conv-in-channels-tp2/gs.json").toFile());
    for (var n : g.withArray("nodes")) {
      if (n.path("name").asText().equals("convolution")) {
        ((ArrayNode) n.get("args")).set(6, json.getNodeFactory().booleanNode(true));
      }
    }
    Path f = dir.resolve("gs.json");
    Files.writeString(f, json.writeValueAsString(g));
    String term = lowered(f).get("convolution");
    assertTrue(!term.contains("conv[") && term.contains("convolution"), term);
  }
}
