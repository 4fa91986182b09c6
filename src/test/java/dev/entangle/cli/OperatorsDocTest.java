package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/operators.md is what scripts/operators-doc writes. */
class OperatorsDocTest {
  @Test
  void theReferenceIsCurrent() throws Exception {
    String expected = OperatorsDoc.markdown(Path.of("examples"));
    String actual = Files.readString(Path.of("docs/operators.md"));
    assertEquals(expected, actual, "docs/operators.md is stale: run scripts/operators-doc");
  }

  @Test
  void everyHloOpcodeHasAStatus() throws Exception {
    String doc = OperatorsDoc.markdown(Path.of("examples"));
    assertTrue(doc.contains("| `dot` | lowered |"), "dot lowers");
    assertTrue(doc.contains("| `while` | refused |"), "loops are refused with a reason");
  }
}
