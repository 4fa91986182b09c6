package dev.entangle.ops;

import dev.entangle.graph.Arg;

/**
 * Reductions along dims (sum, mean, max, min, argmax) and the row-wise operators (softmax,
 * log-softmax, layer norm). Returns null for calls it does not handle.
 */
final class ReductionLowering {

  int[] lower(String base, Call c) {
    switch (base) {
      case "aten.sum", "aten.mean", "aten.amax", "aten.amin" -> {
        Op op = switch (base) {
          case "aten.sum" -> Op.RSUM;
          case "aten.mean" -> Op.RMEAN;
          case "aten.amax" -> Op.RAMAX;
          default -> Op.RAMIN;
        };
        int x = c.tensor(0, "self");
        int dt = c.dtypeArg(-1, "dtype");
        if (base.equals("aten.sum") && dt < 0 && c.outDtype >= 0 && c.outDtype != c.type(x).dtype()) {
          dt = c.outDtype; // sum of bool/int promotes to int64
        }
        x = c.cast(x, dt);
        int rank = c.type(x).rank();
        Arg dimArg = c.arg(1, "dim");
        long[] dims;
        if (dimArg == null || dimArg instanceof Arg.NoneArg || dimArg instanceof Arg.DtypeArg
            || (dimArg instanceof Arg.ListArg l && l.items().isEmpty())) {
          dims = allDims(rank);
        } else {
          dims = AtenNormalizer.dims(c.ints(1, "dim"), rank, c);
        }
        boolean keep = !(dimArg instanceof Arg.DtypeArg) && c.bool(2, "keepdim", false);
        return one(reduce(c, op, x, dims, keep));
      }
      case "aten.max", "aten.min" -> {
        int x = c.tensor(0, "self");
        int rank = c.type(x).rank();
        Op op = base.equals("aten.max") ? Op.RAMAX : Op.RAMIN;
        if (!c.has(1, "dim")) {
          if (c.isTensor(1, "other")) {
            return null; // max.other is maximum; rare in traced graphs
          }
          return one(reduce(c, op, x, allDims(rank), false));
        }
        long d = c.dim(c.integer(1, "dim", null), rank);
        boolean keep = c.bool(2, "keepdim", false);
        int values = reduce(c, op, x, new long[] {d}, keep);
        if (op != Op.RAMAX) {
          return null; // indices of min are not in the core language; stay opaque
        }
        int idx = c.b.add(Op.ARGMAX, new long[] {keep ? 1 : 0, d}, x);
        return new int[] {values, idx};
      }
      case "aten.argmax" -> {
        int x = c.tensor(0, "self");
        if (!c.has(1, "dim")) {
          return null;
        }
        long d = c.dim(c.integer(1, "dim", null), c.type(x).rank());
        return one(c.b.add(Op.ARGMAX, new long[] {c.bool(2, "keepdim", false) ? 1 : 0, d}, x));
      }
      case "aten._softmax", "aten.softmax", "aten._log_softmax", "aten.log_softmax" -> {
        int x = c.tensor(0, "self");
        long d = c.dim(c.integer(1, "dim", null), c.type(x).rank());
        Op op = base.contains("log") ? Op.LOG_SOFTMAX : Op.SOFTMAX;
        int dt = c.dtypeArg(2, "dtype");
        if (base.startsWith("aten._") && c.bool(2, "half_to_float", false)) {
          dt = Dtype.FLOAT32;
        }
        return one(c.b.add(op, new long[] {d}, c.cast(x, dt)));
      }
      case "aten._softmax_backward_data", "aten._log_softmax_backward_data" -> {
        int grad = c.tensor(0, "grad_output");
        int out = c.tensor(1, "output");
        long d = c.dim(c.integer(2, "dim", null), c.type(out).rank());
        Op op = base.contains("log") ? Op.LOG_SOFTMAX_BACKWARD : Op.SOFTMAX_BACKWARD;
        return one(c.cast(c.b.add(op, new long[] {d}, grad, out), c.outDtype));
      }
      case "aten.native_layer_norm", "aten.layer_norm" -> {
        return layerNorm(base, c, 1, 2, 3, 4);
      }
      case "apex.fused_layer_norm_affine_fwd" -> {
        // apex's fused kernel: (input, weight, bias, normalized_shape, eps) -> (out, mean, invvar)
        return layerNorm(base, c, 3, 1, 2, 4);
      }
      case "apex.fused_layer_norm_fwd" -> {
        // without affine parameters: (input, normalized_shape, eps) -> (out, mean, invvar)
        return layerNorm(base, c, 1, -1, -1, 2);
      }
      default -> {
        return null;
      }
    }
  }

  private static int[] one(int h) {
    return new int[] {h};
  }

  static long[] allDims(int rank) {
    long[] d = new long[rank];
    for (int i = 0; i < rank; i++) {
      d[i] = i;
    }
    return d;
  }

  private static int reduce(Call c, Op op, int x, long[] dims, boolean keep) {
    if (dims.length == 0) {
      return x;
    }
    long[] attrs = new long[dims.length + 1];
    attrs[0] = keep ? 1 : 0;
    System.arraycopy(dims, 0, attrs, 1, dims.length);
    return c.b.add(op, attrs, x);
  }

  /**
   * Layer norm as normalize-then-affine: {@code ln_normalize(x) * w + b}, with the mean and rstd
   * results of {@code native_layer_norm} as their own row-wise terms.
   */
  private static int[] layerNorm(String base, Call c, int shapeAt, int weightAt, int biasAt, int epsAt) {
    int x = c.tensor(0, "input");
    long[] shape = c.shape(x);
    long k = c.ints(shapeAt, "normalized_shape").length;
    double eps = c.number(epsAt, "eps", 1e-5);
    long epsBits = Double.doubleToLongBits(eps);
    int y = c.b.add(Op.LN_NORMALIZE, new long[] {k, epsBits}, x);
    if (weightAt >= 0 && c.has(weightAt, "weight")) {
      y = c.b.add(Op.MUL, new long[0], y, c.expandTo(c.tensor(weightAt, "weight"), shape));
    }
    if (biasAt >= 0 && c.has(biasAt, "bias")) {
      y = c.b.add(Op.ADD, new long[0], y, c.expandTo(c.tensor(biasAt, "bias"), shape));
    }
    if (base.equals("aten.layer_norm")) {
      return one(y);
    }
    int mean = c.b.add(Op.LN_MEAN, new long[] {k}, x);
    int rstd = c.b.add(Op.LN_RSTD, new long[] {k, epsBits}, x);
    var t = c.node.meta().types();
    if (t.size() == 3 && t.get(1) != null) {
      long[] statShape = t.get(1).sizes();
      mean = c.reshape(mean, statShape);
      rstd = c.reshape(rstd, statShape);
    }
    return new int[] {y, mean, rstd};
  }
}
