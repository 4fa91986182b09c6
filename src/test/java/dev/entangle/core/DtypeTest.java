package dev.entangle.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The properties of dtypes that the interpreter and the HLO reader read. */
class DtypeTest {
  @Test
  void xlaNamesRoundTrip() {
    for (Dtype d : Dtype.values()) {
      if (d.xlaName() != null) {
        assertEquals(d, Dtype.byXlaName(d.xlaName()), d.canonical());
      }
    }
    assertEquals(Dtype.BOOL, Dtype.byXlaName("pred"));
    assertEquals(Dtype.BFLOAT16, Dtype.byXlaName("bf16"));
    assertNull(Dtype.byXlaName("f8e4m3b11fnuz"), "an XLA type the graph format lacks");
  }

  @Test
  void integralDtypesAndThoseWithNumbers() {
    assertTrue(Dtype.BOOL.isIntegral());
    assertTrue(Dtype.INT64.isIntegral());
    assertFalse(Dtype.FLOAT32.isIntegral());
    assertTrue(Dtype.BFLOAT16.hasNumbers());
    assertFalse(Dtype.COMPLEX64.hasNumbers());
    assertFalse(Dtype.FLOAT8_E4M3FN.hasNumbers());
    assertFalse(Dtype.UINT16.hasNumbers(), "the interpreter has no unsigned wider than 8 bits");
  }

  @Test
  void largestFiniteValues() {
    assertEquals(65504.0, Dtype.FLOAT16.maxFinite());
    assertEquals(Float.MAX_VALUE, Dtype.FLOAT32.maxFinite());
    assertEquals(Double.MAX_VALUE, Dtype.FLOAT64.maxFinite());
  }
}
