package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StackTracesTest {

  @Test
  void restoresTheFrameTorchFxSummarized() {
    assertEquals(
        "File \"/opt/x in y/model.py\", line 94, in forward\n    y = input_x * self.a + self.b",
        StackTraces.fromSummary(
            "File: /opt/x in y/model.py:94 in forward, code: y = input_x * self.a + self.b"));
    assertEquals(
        "File \"C:\\m.py\", line 3, in <lambda>\n    ",
        StackTraces.fromSummary("File: C:\\m.py:3 in <lambda>, code: "));
  }

  @Test
  void recognisesOnlySummaries() {
    assertTrue(StackTraces.isSummary("File: a.py:1 in f, code: x"));
    assertFalse(StackTraces.isSummary("Graph[rank=0](fw, gid=0)"));
    assertNull(StackTraces.fromSummary("File: a.py in f, code: x"));
    assertNull(StackTraces.fromSummary("File: a.py:1 in f"));
  }

  @Test
  void symbolicScalarDtypes() {
    assertEquals("int64", TypeAnnotations.symbolicDtype("s0"));
    assertEquals("int64", TypeAnnotations.symbolicDtype("(s0//2) + 1"));
    assertEquals("bool", TypeAnnotations.symbolicDtype("u0 >= 0"));
    assertEquals("bool", TypeAnnotations.symbolicDtype("Eq(s0, 2)"));
    assertEquals("float64", TypeAnnotations.symbolicDtype("s0/2"));
    assertEquals("float64", TypeAnnotations.symbolicDtype("0.5*s0"));
  }
}
