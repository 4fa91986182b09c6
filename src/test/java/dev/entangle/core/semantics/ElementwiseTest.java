package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.BF16;
import static dev.entangle.eval.Tensors.BOOL;
import static dev.entangle.eval.Tensors.F16;
import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.I64;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.attrs;
import static dev.entangle.eval.Tensors.bits;
import static dev.entangle.eval.Tensors.bool;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.i64;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Tensors;
import org.junit.jupiter.api.Test;

/**
 * Leaves, unary and binary operators, casts, where and the element-wise reductions, against values
 * worked out by hand.
 */
class ElementwiseTest {
  private static final double NAN = Double.NaN;

  @Test
  void constantsAreRoundedToTheirDtype() {
    assertTensor(apply(Op.SCALAR, attrs(bits(0.1), F32)), F32, shape(), (float) 0.1);
    assertTensor(apply(Op.SCALAR, attrs(bits(2.9), I64)), I64, shape(), 2);
    assertTensor(apply(Op.FULL, attrs(bits(1.5), F32, 2, 2)), F32, shape(2, 2), 1.5, 1.5, 1.5, 1.5);
    assertTensor(apply(Op.FULL, attrs(bits(1.5), F32, 0, 3)), F32, shape(0, 3));
  }

  @Test
  void arangeCountsByItsStep() {
    assertTensor(apply(Op.ARANGE, attrs(2, 9, 3, I64)), I64, shape(3), 2, 5, 8);
    assertTensor(apply(Op.ARANGE, attrs(5, 1, -2, I64)), I64, shape(2), 5, 3);
    assertTensor(apply(Op.ARANGE, attrs(4, 4, 1, I64)), I64, shape(0));
  }

  @Test
  void undefinedAndTensorLeavesHaveNoValueHere() {
    EvalException undef =
        assertThrows(EvalException.class, () -> apply(Op.UNDEF, attrs(7, F32, 2)));
    assertTrue(undef.getMessage().contains("no defined value"), undef.getMessage());
    EvalException leaf = assertThrows(EvalException.class, () -> apply(Op.TENSOR, attrs(3)));
    assertEquals("tensor[3] has no value here", leaf.getMessage());
  }

  @Test
  void unaryFunctions() {
    Tensor x = f32(shape(4), -1, 0, 1, 2);
    assertTensor(apply(Op.NEG, attrs(), x), F32, shape(4), 1, 0, -1, -2);
    assertTensor(apply(Op.EXP, attrs(), x), F32, shape(4), Math.exp(-1), 1, Math.E, Math.exp(2));
    assertTensor(
        apply(Op.LOG, attrs(), x), F32, shape(4), NAN, Double.NEGATIVE_INFINITY, 0, Math.log(2));
    assertTensor(apply(Op.RELU, attrs(), f32(shape(3), -1, 2, NAN)), F32, shape(3), 0, 2, NAN);
    assertTensor(
        apply(Op.TANH, attrs(), x), F32, shape(4), Math.tanh(-1), 0, Math.tanh(1), Math.tanh(2));
    assertTensor(
        apply(Op.SIGMOID, attrs(), x),
        F32,
        shape(4),
        0.2689414213699951,
        0.5,
        0.7310585786300049,
        0.8807970779778823);
    assertTensor(
        apply(Op.SILU, attrs(), x),
        F32,
        shape(4),
        -0.2689414213699951,
        0,
        0.7310585786300049,
        1.7615941559557646);
    assertTensor(apply(Op.SQRT, attrs(), f32(shape(2), 4, 2)), F32, shape(2), 2, Math.sqrt(2));
    assertTensor(
        apply(Op.RSQRT, attrs(), f32(shape(2), 4, 0)),
        F32,
        shape(2),
        0.5,
        Double.POSITIVE_INFINITY);
    assertTensor(apply(Op.ABS, attrs(), x), F32, shape(4), 1, 0, 1, 2);
    assertTensor(apply(Op.RECIPROCAL, attrs(), f32(shape(2), 4, -0.5)), F32, shape(2), 0.25, -2);
  }

  @Test
  void geluExactAndTanhApproximation() {
    Tensor x = f32(shape(3), -1, 0, 1);
    // 0.5 x (1 + erf(x / sqrt 2)); torch.nn.functional.gelu gives these to double precision
    assertTensor(
        apply(Op.GELU, attrs(0), x), F32, shape(3), -0.15865525393145707, 0, 0.8413447460685429);
    assertTensor(
        apply(Op.GELU, attrs(1), x), F32, shape(3), -0.15880800939172324, 0, 0.8411919906082768);
  }

  @Test
  void notIsLogicalForBoolsAndBitwiseForIntegers() {
    assertTensor(apply(Op.NOT, attrs(), bool(shape(2), 0, 1)), BOOL, shape(2), 1, 0);
    assertTensor(apply(Op.NOT, attrs(), i64(shape(2), 5, -1)), I64, shape(2), -6, 0);
  }

  @Test
  void castRoundsToTheDtype() {
    assertTensor(
        apply(Op.CAST, attrs(F32), Tensor.of(Tensors.F64, shape(1), 0.1)),
        F32,
        shape(1),
        (double) 0.1f);
    // float16: 11 significant bits, max 65504, subnormals down to 2^-24
    assertTensor(
        apply(Op.CAST, attrs(F16), f32(shape(5), 0.1, 65519, 65520, 1e-8, 6e-8)),
        F16,
        shape(5),
        0.0999755859375,
        65504,
        Double.POSITIVE_INFINITY,
        0,
        5.960464477539063e-8);
    // bfloat16: 8 significant bits; 1 + 2^-8 is a tie, rounded to even
    assertTensor(
        apply(Op.CAST, attrs(BF16), f32(shape(3), 1.00390625, 1.01171875, 3.1415926)),
        BF16,
        shape(3),
        1.0,
        1.015625,
        3.140625);
    assertTensor(
        apply(Op.CAST, attrs(I64), f32(shape(3), 2.7, -2.7, 0.4)), I64, shape(3), 2, -2, 0);
    assertTensor(
        apply(Op.CAST, attrs(Dtype.code("int8")), i64(shape(2), 200, -129)),
        Dtype.code("int8"),
        shape(2),
        -56,
        127);
    assertTensor(
        apply(Op.CAST, attrs(Dtype.code("uint8")), i64(shape(1), -1)),
        Dtype.code("uint8"),
        shape(1),
        255);
    assertTensor(apply(Op.CAST, attrs(BOOL), f32(shape(3), 0, 0.3, NAN)), BOOL, shape(3), 0, 1, 1);
  }

  @Test
  void castOfNanToAnIntegerIsRefused() {
    EvalException e =
        assertThrows(EvalException.class, () -> apply(Op.CAST, attrs(I64), f32(shape(1), NAN)));
    assertEquals("cannot convert NaN to int64", e.getMessage());
  }

  @Test
  void arithmetic() {
    Tensor a = f32(shape(3), 1, -2, 3);
    Tensor b = f32(shape(3), 4, 5, -6);
    assertTensor(apply(Op.ADD, attrs(), a, b), F32, shape(3), 5, 3, -3);
    assertTensor(apply(Op.SUB, attrs(), a, b), F32, shape(3), -3, -7, 9);
    assertTensor(apply(Op.MUL, attrs(), a, b), F32, shape(3), 4, -10, -18);
    assertTensor(apply(Op.DIV, attrs(), a, b), F32, shape(3), 0.25, -0.4, -0.5);
    assertTensor(
        apply(Op.POW, attrs(), f32(shape(2), 2, 9), f32(shape(2), 3, 0.5)), F32, shape(2), 8, 3);
    assertTensor(
        apply(Op.MAXIMUM, attrs(), f32(shape(2), 1, NAN), f32(shape(2), 2, 0)),
        F32,
        shape(2),
        2,
        NAN);
    assertTensor(
        apply(Op.MINIMUM, attrs(), f32(shape(2), 1, 0), f32(shape(2), 2, NAN)),
        F32,
        shape(2),
        1,
        NAN);
  }

  @Test
  void operandsOfDifferentShapesAreRefused() {
    EvalException e =
        assertThrows(
            EvalException.class,
            () -> apply(Op.ADD, attrs(), f32(shape(2), 1, 2), f32(shape(3), 1, 2, 3)));
    assertEquals("add: add of operands with shapes [2] and [3]", e.getMessage());
  }

  @Test
  void comparisonsGiveBooleans() {
    Tensor a = f32(shape(3), 1, 2, NAN);
    Tensor b = f32(shape(3), 2, 2, NAN);
    assertTensor(apply(Op.EQ, attrs(), a, b), BOOL, shape(3), 0, 1, 0);
    assertTensor(apply(Op.NE, attrs(), a, b), BOOL, shape(3), 1, 0, 1);
    assertTensor(apply(Op.LT, attrs(), a, b), BOOL, shape(3), 1, 0, 0);
    assertTensor(apply(Op.LE, attrs(), a, b), BOOL, shape(3), 1, 1, 0);
    assertTensor(apply(Op.GT, attrs(), a, b), BOOL, shape(3), 0, 0, 0);
    assertTensor(apply(Op.GE, attrs(), a, b), BOOL, shape(3), 0, 1, 0);
  }

  @Test
  void logicIsLogicalForBoolsAndBitwiseForIntegers() {
    Tensor p = bool(shape(4), 0, 0, 1, 1);
    Tensor q = bool(shape(4), 0, 1, 0, 1);
    assertTensor(apply(Op.AND, attrs(), p, q), BOOL, shape(4), 0, 0, 0, 1);
    assertTensor(apply(Op.OR, attrs(), p, q), BOOL, shape(4), 0, 1, 1, 1);
    assertTensor(apply(Op.XOR, attrs(), p, q), BOOL, shape(4), 0, 1, 1, 0);
    Tensor a = i64(shape(1), 12);
    Tensor b = i64(shape(1), 10);
    assertTensor(apply(Op.AND, attrs(), a, b), I64, shape(1), 8);
    assertTensor(apply(Op.OR, attrs(), a, b), I64, shape(1), 14);
    assertTensor(apply(Op.XOR, attrs(), a, b), I64, shape(1), 6);
  }

  @Test
  void whereSelectsByTheCondition() {
    assertTensor(
        apply(
            Op.WHERE,
            attrs(),
            bool(shape(3), 1, 0, 1),
            f32(shape(3), 1, 2, 3),
            f32(shape(3), -1, -2, -3)),
        F32,
        shape(3),
        1,
        -2,
        3);
  }

  @Test
  void elementwiseReductionsOfSeveralOperands() {
    Tensor a = f32(shape(2), 1, 5);
    Tensor b = f32(shape(2), 4, 2);
    Tensor c = f32(shape(2), -3, 3);
    assertTensor(apply(Op.SUMN, attrs(), a, b, c), F32, shape(2), 2, 10);
    assertTensor(apply(Op.MAXN, attrs(), a, b, c), F32, shape(2), 4, 5);
    assertTensor(apply(Op.MINN, attrs(), a, b, c), F32, shape(2), -3, 2);
  }
}
