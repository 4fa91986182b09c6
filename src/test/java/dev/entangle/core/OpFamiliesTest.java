package dev.entangle.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Lemma families follow from the operators' declared kinds and properties. */
class OpFamiliesTest {
  private static boolean in(Op.Family f, Op op) {
    return Arrays.stream(f.ids()).anyMatch(id -> id == op.id());
  }

  @Test
  void elementwiseFamiliesFollowTheKinds() {
    assertTrue(in(Op.Family.UNARY, Op.GELU));
    assertTrue(in(Op.Family.UNARY, Op.EW1), "other element-wise ATen operators join the family");
    assertTrue(in(Op.Family.BINARY, Op.EQ), "comparisons are element-wise");
    assertTrue(in(Op.Family.BINARY, Op.EW2));
    assertFalse(in(Op.Family.BINARY, Op.WHERE), "where has three operands");
    assertFalse(in(Op.Family.UNARY, Op.RESHAPE), "a layout operator is not element-wise");
  }

  @Test
  void rowWiseFamiliesAreDistinct() {
    assertArrayEquals(new int[] {Op.SOFTMAX.id(), Op.LOG_SOFTMAX.id()}, Op.Family.ALONG_DIM.ids());
    assertArrayEquals(
        new int[] {Op.SOFTMAX_BACKWARD.id(), Op.LOG_SOFTMAX_BACKWARD.id()},
        Op.Family.ALONG_DIM_2.ids());
    assertTrue(in(Op.Family.LAST_DIMS, Op.RMS_NORMALIZE));
    assertFalse(in(Op.Family.LAST_DIMS, Op.SOFTMAX));
  }

  @Test
  void linearityIsAPropertyNotAKind() {
    assertArrayEquals(new int[] {Op.NEG.id(), Op.SCALE.id()}, Op.Family.LINEAR_UNARY.ids());
    assertFalse(in(Op.Family.LINEAR_UNARY, Op.EXP), "exp(a + b) is not exp(a) + exp(b)");
  }

  @Test
  void membersComeInDeclarationOrder() {
    int[] ids = Op.Family.REDUCE.ids();
    int[] sorted = ids.clone();
    Arrays.sort(sorted);
    assertArrayEquals(sorted, ids);
  }
}
