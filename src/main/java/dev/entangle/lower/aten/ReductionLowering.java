package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.graph.Arg;
import dev.entangle.graph.TensorType;
import dev.entangle.lower.LoweringException;
import java.util.Arrays;
import java.util.List;

/**
 * Reductions along dims (sum, mean, max, min, argmax) and the row-wise operators (softmax,
 * log-softmax, layer norm). Returns null for calls it does not handle.
 */
final class ReductionLowering {

  int[] lower(String base, Call c) {
    switch (base) {
      case "aten.sum", "aten.mean", "aten.amax", "aten.amin" -> {
        Op op =
            switch (base) {
              case "aten.sum" -> Op.RSUM;
              case "aten.mean" -> Op.RMEAN;
              case "aten.amax" -> Op.RAMAX;
              default -> Op.RAMIN;
            };
        int x = c.tensor(0, "self");
        int dt = c.dtypeArg(-1, "dtype");
        if (base.equals("aten.sum")
            && dt < 0
            && c.outDtype >= 0
            && c.outDtype != c.type(x).dtype()) {
          dt = c.outDtype; // sum of bool/int promotes to int64
        }
        x = c.cast(x, dt);
        int rank = c.type(x).rank();
        long[] dims = reductionDims(c, rank);
        boolean keep = !(c.arg(1, "dim") instanceof Arg.DtypeArg) && c.bool(2, "keepdim", false);
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
      case "aten.topk" -> {
        return topk(c);
      }
      case "aten.linalg_vector_norm", "aten.norm" -> {
        return one(vectorNorm(c, base.equals("aten.norm")));
      }
      case "aten.argmax" -> {
        int x = c.tensor(0, "self");
        if (!c.has(1, "dim")) {
          return null;
        }
        long d = c.dim(c.integer(1, "dim", null), c.type(x).rank());
        return one(c.b.add(Op.ARGMAX, new long[] {c.bool(2, "keepdim", false) ? 1 : 0, d}, x));
      }
      case "aten.var" -> {
        return one(variance(c));
      }
      case "aten.argmin" -> {
        // the first minimum is the first maximum of the negation
        int x = c.tensor(0, "self");
        if (!c.has(1, "dim")) {
          return null;
        }
        long d = c.dim(c.integer(1, "dim", null), c.type(x).rank());
        int negated = c.b.add(Op.NEG, new long[0], x);
        return one(
            c.b.add(Op.ARGMAX, new long[] {c.bool(2, "keepdim", false) ? 1 : 0, d}, negated));
      }
      case "aten.any" -> {
        return one(any(c));
      }
      case "aten.cumsum" -> {
        int x = c.cast(c.tensor(0, "self"), c.dtypeArg(2, "dtype"));
        if (c.outDtype >= 0) {
          x = c.cast(x, c.outDtype); // a cumsum of bools or small integers counts in int64
        }
        if (c.type(x).rank() == 0) {
          return one(x);
        }
        return one(c.cumsum(x, c.dim(c.integer(1, "dim", null), c.type(x).rank())));
      }
      case "aten.native_group_norm" -> {
        return groupNorm(c);
      }
      case "aten._native_batch_norm_legit_no_training" -> {
        return batchNormInference(c);
      }
      case "aten._native_batch_norm_legit", "aten._native_batch_norm_legit_functional" -> {
        return batchNormTraining(c, base.endsWith("_functional"));
      }
      case "aten._softmax", "aten.softmax", "aten._log_softmax", "aten.log_softmax" -> {
        int x = c.tensor(0, "self");
        long d = c.dim(c.integer(1, "dim", null), c.type(x).rank());
        Op op = base.contains("log") ? Op.LOG_SOFTMAX : Op.SOFTMAX;
        int dt = c.dtypeArg(2, "dtype");
        if (base.startsWith("aten._") && c.bool(2, "half_to_float", false)) {
          dt = Dtype.FLOAT32.code();
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
      case "aten.native_layer_norm_backward" -> {
        // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask) -> (dx, dw,
        // db)
        return layerNormBackward(c, 0, 1, 3, 4, 2, 5);
      }
      case "apex.fused_layer_norm_affine_bwd" -> {
        // (grad_output, mean, invvar, input, normalized_shape, weight, bias, eps) -> (dx, dw, db)
        return layerNormBackward(c, 0, 3, 1, 2, 4, 5);
      }
      case "apex.fused_layer_norm_bwd" -> {
        // (grad_output, mean, invvar, input, normalized_shape, eps) -> dx
        return layerNormBackward(c, 0, 3, 1, 2, 4, -1);
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

  /**
   * {@code var} as torch decomposes it: the sum of squared deviations from the mean over the dims,
   * divided by their count less the correction. Overloads: {@code var(self, unbiased)}, {@code
   * var.dim(self, dim, unbiased, keepdim)} and {@code var.correction(self, dim, *, correction,
   * keepdim)}; unbiased is a correction of 1, and the correction is 1 when none is given.
   */
  private static int variance(Call c) {
    int x = c.tensor(0, "self");
    int rank = c.type(x).rank();
    double correction = 1;
    boolean keep = false;
    long[] dims = allDims(rank);
    if (c.arg(1, null) instanceof Arg.BoolArg unbiased) {
      correction = unbiased.value() ? 1 : 0;
    } else {
      dims = reductionDims(c, rank);
      if (c.arg(2, null) instanceof Arg.BoolArg unbiased) {
        correction = unbiased.value() ? 1 : 0;
        keep = c.bool(3, "keepdim", false);
      } else {
        correction =
            c.has(-1, "correction")
                ? c.number(-1, "correction", null)
                : c.bool(-1, "unbiased", true) ? 1 : 0;
        keep = c.bool(-1, "keepdim", false);
      }
    }
    long[] shape = c.shape(x);
    long count = 1;
    for (long d : dims) {
      count *= shape[(int) d];
    }
    int deviation =
        c.b.add(Op.SUB, new long[0], x, c.expandTo(reduce(c, Op.RMEAN, x, dims, true), shape));
    int squares =
        reduce(c, Op.RSUM, c.b.add(Op.MUL, new long[0], deviation, deviation), dims, keep);
    double factor = 1.0 / (count - correction);
    return c.b.add(
        Op.MUL, new long[0], squares, c.filled(factor, c.type(squares).dtype(), c.shape(squares)));
  }

  /**
   * {@code any} over all dims, one ({@code any.dim}) or several ({@code any.dims}): whether some
   * element is nonzero, as the largest of the elements' {@code != 0}.
   */
  private static int any(Call c) {
    int x = c.tensor(0, "self");
    long[] dims = reductionDims(c, c.type(x).rank());
    boolean keep = c.bool(2, "keepdim", false);
    int nonzero = c.b.add(Op.NE, new long[0], x, c.filled(0, c.type(x).dtype(), c.shape(x)));
    int counted = c.cast(nonzero, Dtype.FLOAT32.code());
    return c.cast(reduce(c, Op.RAMAX, counted, dims, keep), Dtype.BOOL.code());
  }

  /**
   * Group norm as torch decomposes it: the channels (dim 1) split into {@code group} groups, each
   * sample's group normalized over its channels and positions as a layer norm over one flattened
   * dim, then scaled and shifted per channel; the mean and rstd per sample and group are the other
   * outputs. Arguments: (input, weight, bias, N, C, HxW, group, eps).
   */
  private static int[] groupNorm(Call c) {
    int x = c.tensor(0, "input");
    long[] shape = c.shape(x);
    long groups = c.integer(6, "group", null);
    if (shape.length < 2 || groups < 1 || shape[1] % groups != 0) {
      throw new LoweringException(
          "group norm of an input of shape "
              + Arrays.toString(shape)
              + " in "
              + groups
              + " groups: the channels (dim 1) must split evenly");
    }
    long n = shape[0];
    long perGroup = c.type(x).numel() / Math.max(1, n * groups);
    long epsBits = Double.doubleToLongBits(c.number(7, "eps", 1e-5));
    int grouped = c.reshape(x, new long[] {n, groups, perGroup});
    int y = c.reshape(c.b.add(Op.LN_NORMALIZE, new long[] {1, epsBits}, grouped), shape);
    y = affine(c, y, shape, c.type(x).dtype());
    long[] stats = {n, groups};
    int mean = c.reshape(c.b.add(Op.LN_MEAN, new long[] {1}, grouped), stats);
    int rstd = c.reshape(c.b.add(Op.LN_RSTD, new long[] {1, epsBits}, grouped), stats);
    return new int[] {y, mean, rstd};
  }

  /**
   * Batch norm as {@code _native_batch_norm_legit} computes it: in training, each channel (dim 1)
   * normalized by the mean and biased variance of its entries over the batch and every other dim,
   * then scaled and shifted, with that mean and rstd as the other outputs; the {@code _functional}
   * form also returns the running statistics moved toward the batch's ({@code (1 - momentum) *
   * running + momentum * batch}, with the unbiased variance). Out of training, the running
   * statistics ({@link #batchNormInference}). Arguments: (input, weight, bias, running_mean,
   * running_var, training, momentum, eps), or without the running statistics ({@code .no_stats}).
   */
  private static int[] batchNormTraining(Call c, boolean functional) {
    boolean noStats = !functional && c.arg(3, null) instanceof Arg.BoolArg;
    int at = noStats ? 3 : 5;
    boolean training = c.bool(at, "training", true);
    double momentum = c.number(at + 1, "momentum", 0.1);
    double eps = c.number(at + 2, "eps", 1e-5);
    int x = batchNormInput(c);
    long[] shape = c.shape(x);
    if (!training) {
      if (noStats || functional) {
        return null; // no running statistics to normalize by, or their update: kept opaque
      }
      return batchNormWith(c, x, c.tensor(3, "running_mean"), c.tensor(4, "running_var"), eps);
    }
    int dtype = c.type(x).dtype();
    long[] dims = new long[shape.length - 1];
    long count = shape[0];
    dims[0] = 0;
    for (int i = 2; i < shape.length; i++) {
      dims[i - 1] = i;
      count *= shape[i];
    }
    int mean = reduce(c, Op.RMEAN, x, dims, true);
    int deviation = c.b.add(Op.SUB, new long[0], x, c.expandTo(mean, shape));
    int biased =
        reduce(c, Op.RMEAN, c.b.add(Op.MUL, new long[0], deviation, deviation), dims, true);
    int rstd = rsqrtPlus(c, biased, eps);
    int y = c.b.add(Op.MUL, new long[0], deviation, c.expandTo(rstd, shape));
    y = affine(c, y, shape, dtype);
    long[] flat = {shape[1]};
    int[] out = {y, c.reshape(mean, flat), c.reshape(rstd, flat)};
    if (!functional) {
      return out;
    }
    int unbiased =
        c.b.add(
            Op.MUL,
            new long[0],
            biased,
            c.filled(count / (double) (count - 1), dtype, c.shape(biased)));
    int runningMean = moved(c, c.tensor(3, "running_mean"), c.reshape(mean, flat), momentum);
    int runningVar = moved(c, c.tensor(4, "running_var"), c.reshape(unbiased, flat), momentum);
    return new int[] {out[0], out[1], out[2], runningMean, runningVar};
  }

  /** {@code (1 - momentum) * running + momentum * batch}, in the running statistic's dtype. */
  private static int moved(Call c, int running, int batch, double momentum) {
    int dtype = c.type(running).dtype();
    long[] s = c.shape(running);
    return c.b.add(
        Op.ADD,
        new long[0],
        c.b.add(Op.MUL, new long[0], running, c.filled(1 - momentum, dtype, s)),
        c.b.add(Op.MUL, new long[0], c.cast(batch, dtype), c.filled(momentum, dtype, s)));
  }

  /** The input of a batch norm call, which has at least a batch and a channel dim. */
  private static int batchNormInput(Call c) {
    int x = c.tensor(0, "input");
    if (c.shape(x).length < 2) {
      throw new LoweringException(
          "batch norm takes an input of at least 2 dims (batch, channels, ...), got "
              + Arrays.toString(c.shape(x)));
    }
    return x;
  }

  /** {@code rsqrt(v + eps)}. */
  private static int rsqrtPlus(Call c, int v, double eps) {
    return c.b.add(
        Op.RSQRT,
        new long[0],
        c.b.add(Op.ADD, new long[0], v, c.filled(eps, c.type(v).dtype(), c.shape(v))));
  }

  /** A per-channel tensor [C], cast to dtype and laid out along dim 1 of {@code shape}. */
  private static int perChannel(Call c, int t, long[] shape, int dtype) {
    return c.expandTo(c.reshape(c.cast(t, dtype), channelShape(shape)), shape);
  }

  private static long[] channelShape(long[] shape) {
    long[] channel = new long[shape.length];
    Arrays.fill(channel, 1);
    channel[1] = shape[1];
    return channel;
  }

  /** y times the weight and plus the bias per channel, where the call gives them (1 and 2). */
  private static int affine(Call c, int y, long[] shape, int dtype) {
    if (c.has(1, "weight")) {
      y = c.b.add(Op.MUL, new long[0], y, perChannel(c, c.tensor(1, "weight"), shape, dtype));
    }
    if (c.has(2, "bias")) {
      y = c.b.add(Op.ADD, new long[0], y, perChannel(c, c.tensor(2, "bias"), shape, dtype));
    }
    return y;
  }

  /**
   * Batch norm in inference: {@code (x - running_mean) * rsqrt(running_var + eps) * weight + bias}
   * per channel (dim 1), with the two statistics outputs, empty in inference, as empty tensors.
   * Arguments: (input, weight, bias, running_mean, running_var, momentum, eps).
   */
  private static int[] batchNormInference(Call c) {
    return batchNormWith(
        c,
        batchNormInput(c),
        c.tensor(3, "running_mean"),
        c.tensor(4, "running_var"),
        c.number(6, "eps", 1e-5));
  }

  /** x normalized per channel by the given mean and variance, scaled and shifted; empty stats. */
  private static int[] batchNormWith(Call c, int x, int runningMean, int runningVar, double eps) {
    long[] shape = c.shape(x);
    int dtype = c.type(x).dtype();
    int centered = c.b.add(Op.SUB, new long[0], x, perChannel(c, runningMean, shape, dtype));
    int rstd = rsqrtPlus(c, c.reshape(c.cast(runningVar, dtype), channelShape(shape)), eps);
    int y = c.b.add(Op.MUL, new long[0], centered, c.expandTo(rstd, shape));
    int empty = c.filled(0, dtype, new long[] {0});
    return new int[] {affine(c, y, shape, dtype), empty, empty};
  }

  /**
   * The dims a reduction's argument 1 ({@code dim}: one, a list, or none) names, normalized; every
   * dim when it names none (absent, None, an empty list, or a dtype in its place).
   */
  private static long[] reductionDims(Call c, int rank) {
    Arg dimArg = c.arg(1, "dim");
    if (dimArg == null
        || dimArg instanceof Arg.NoneArg
        || dimArg instanceof Arg.DtypeArg
        || (dimArg instanceof Arg.ListArg l && l.items().isEmpty())) {
      return allDims(rank);
    }
    return AtenNormalizer.dims(c.ints(1, "dim"), rank, c);
  }

  static long[] allDims(int rank) {
    long[] d = new long[rank];
    for (int i = 0; i < rank; i++) {
      d[i] = i;
    }
    return d;
  }

  /**
   * {@code topk(x, k, dim, largest, sorted)}: the values and their indices. Unsorted ({@code
   * sorted=False}) stays opaque: torch leaves that order to the kernel.
   */
  private static int[] topk(Call c) {
    int x = c.tensor(0, "self");
    int rank = c.type(x).rank();
    if (rank == 0 || !c.bool(4, "sorted", true)) {
      return null;
    }
    long k = c.integer(1, "k", null);
    long d = c.dim(c.integer(2, "dim", -1L), rank);
    long[] attrs = {d, k, c.bool(3, "largest", true) ? 1 : 0};
    return new int[] {c.b.add(Op.TOPK, attrs, x), c.b.add(Op.TOPK_INDICES, attrs, x)};
  }

  /**
   * {@code linalg_vector_norm(x, ord, dim, keepdim, dtype)} and {@code norm(x, p, dim, keepdim)} as
   * torch's reference computes them: {@code (sum |x|^p)^(1/p)} over the dims (every dim when none
   * is named), {@code |x|} left out for an even p of a float; the largest or smallest {@code |x|}
   * for an infinite p, and the count of non-zero entries for p = 0.
   */
  private static int vectorNorm(Call c, boolean legacy) {
    int x = c.tensor(0, "self");
    int dt = c.dtypeArg(legacy ? -1 : 4, "dtype");
    x = c.cast(x, dt);
    int xdt = c.type(x).dtype();
    int rank = c.type(x).rank();
    String key = legacy ? "p" : "ord";
    Arg pArg = c.arg(1, key);
    double p = pArg == null || pArg instanceof Arg.NoneArg ? 2.0 : c.number(1, key, 2.0);
    Arg dimArg = c.arg(2, "dim");
    long[] dims =
        dimArg == null
                || dimArg instanceof Arg.NoneArg
                || (dimArg instanceof Arg.ListArg l && l.items().isEmpty())
            ? allDims(rank)
            : AtenNormalizer.dims(c.ints(2, "dim"), rank, c);
    boolean keep = c.bool(3, "keepdim", false);
    if (p == 0) {
      int nonZero = c.cast(c.b.add(Op.NE, new long[0], x, c.filled(0, xdt, c.shape(x))), xdt);
      return reduce(c, Op.RSUM, nonZero, dims, keep);
    }
    int abs = c.b.add(Op.ABS, new long[0], x);
    if (Double.isInfinite(p)) {
      return reduce(c, p > 0 ? Op.RAMAX : Op.RAMIN, abs, dims, keep);
    }
    boolean even = p % 2 == 0 && Dtype.of(xdt).isFloating();
    int base = even ? x : abs;
    int powered = c.b.add(Op.POW, new long[0], base, c.filled(p, xdt, c.shape(x)));
    int sum = reduce(c, Op.RSUM, powered, dims, keep);
    return c.b.add(Op.POW, new long[0], sum, c.filled(1.0 / p, xdt, c.shape(sum)));
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
   * Layer-norm backward from the upstream gradient, the input and the saved statistics, as its
   * formulas: with {@code xhat = (x - mean) * rstd} and {@code g = dy * w}, {@code dx = rstd * (g -
   * mean(g) - xhat * mean(g * xhat))} (means over the normalized dims), {@code dw} the sum of
   * {@code dy * xhat} and {@code db} the sum of {@code dy} over the other dims; computed in float32
   * (as the kernels accumulate) and cast to each result's dtype. The statistics are used as given,
   * never recomputed, so a graph that passes the wrong ones is not taken for a right one.
   */
  private static int[] layerNormBackward(
      Call c, int dyAt, int xAt, int meanAt, int rstdAt, int shapeAt, int weightAt) {
    int f32 = Dtype.FLOAT32.code();
    int x = c.cast(c.tensor(xAt, "input"), f32);
    int dy = c.cast(c.tensor(dyAt, "grad_output"), f32);
    long[] shape = c.shape(x);
    int k = c.ints(shapeAt, "normalized_shape").length;
    int rank = shape.length;
    if (k < 1 || k > rank || !Arrays.equals(shape, c.shape(dy))) {
      throw new LoweringException(
          "a layer-norm gradient needs an input and a gradient of one shape, normalized over"
              + " its last dims");
    }
    long[] stat = shape.clone();
    long[] normalized = new long[k];
    long[] leading = new long[rank - k];
    for (int i = 0; i < rank; i++) {
      if (i >= rank - k) {
        stat[i] = 1;
        normalized[i - rank + k] = i;
      } else {
        leading[i] = i;
      }
    }
    int mean = c.expandTo(c.reshape(c.cast(c.tensor(meanAt, "mean"), f32), stat), shape);
    int rstd = c.expandTo(c.reshape(c.cast(c.tensor(rstdAt, "rstd"), f32), stat), shape);
    int xhat = c.b.add(Op.MUL, new long[0], c.b.add(Op.SUB, new long[0], x, mean), rstd);
    boolean affine = weightAt >= 0 && c.has(weightAt, "weight");
    int g =
        affine
            ? c.b.add(
                Op.MUL,
                new long[0],
                dy,
                c.expandTo(c.cast(c.tensor(weightAt, "weight"), f32), shape))
            : dy;
    int meanG = c.expandTo(reduce(c, Op.RMEAN, g, normalized, true), shape);
    int meanGx =
        c.expandTo(
            reduce(c, Op.RMEAN, c.b.add(Op.MUL, new long[0], g, xhat), normalized, true), shape);
    int centered =
        c.b.add(
            Op.SUB,
            new long[0],
            c.b.add(Op.SUB, new long[0], g, meanG),
            c.b.add(Op.MUL, new long[0], xhat, meanGx));
    int dx = c.b.add(Op.MUL, new long[0], rstd, centered);
    var types = c.node.meta().types();
    int[] out = new int[] {c.cast(dx, dtypeOf(types, 0, c.outDtype))};
    if (weightAt < 0) {
      return out;
    }
    int dw = reduce(c, Op.RSUM, c.b.add(Op.MUL, new long[0], dy, xhat), leading, false);
    int db = reduce(c, Op.RSUM, dy, leading, false);
    return new int[] {
      out[0], c.cast(dw, dtypeOf(types, 1, f32)), c.cast(db, dtypeOf(types, 2, f32))
    };
  }

  private static int dtypeOf(List<TensorType> types, int i, int dflt) {
    return types.size() > i && types.get(i) != null ? Dtype.code(types.get(i).dtype()) : dflt;
  }

  /**
   * Layer norm as normalize-then-affine: {@code ln_normalize(x) * w + b}, with the mean and rstd
   * results of {@code native_layer_norm} as their own row-wise terms.
   */
  private static int[] layerNorm(
      String base, Call c, int shapeAt, int weightAt, int biasAt, int epsAt) {
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
