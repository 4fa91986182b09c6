package dev.entangle.lower;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/operators.md is generated from the operator table and kept current. */
class OperatorReferenceTest {
  @Test
  void everyOperatorHasARowAndTheCensusSeesTheLowering() throws Exception {
    String doc = OperatorReference.markdown(Path.of("examples"));
    for (Op op : Op.values()) {
      assertTrue(doc.contains("| `" + op.symbol() + "` |"), op.symbol());
    }
    assertTrue(doc.contains("`aten.mm.default`"), "mm lowers to matmul in the examples");
    assertTrue(doc.contains("`xla.dot`"), "XLA's dot lowers to matmul in the HLO example");
  }
}
