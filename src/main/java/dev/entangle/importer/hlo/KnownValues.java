package dev.entangle.importer.hlo;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;

/**
 * The values of the small arrays a program computes from literals and its rank alone ({@code
 * partition-id}, {@code replica-id}): offsets of dynamic slices, start indices, scalar operands.
 * Each rank's graph is built with its own values, so per-rank offsets become plain slices.
 * Evaluated in the program's order; integer arithmetic follows XLA (division truncates, conversion
 * to an integer truncates toward zero).
 */
final class KnownValues {
  /** Arrays with more elements are not evaluated. */
  static final int MAX_ELEMENTS = 4096;

  /**
   * A known value.
   *
   * @param type its type
   * @param values its elements, row-major
   * @param rankDependent whether it depends on the rank (partition-id or replica-id)
   */
  record Known(HloType.Array type, double[] values, boolean rankDependent) {
    boolean isScalar() {
      return values.length == 1;
    }

    double scalar() {
      return values[0];
    }
  }

  private final Map<String, Known> known = new HashMap<>();
  private final int rank;

  KnownValues(int rank) {
    this.rank = rank;
  }

  /** The known value of an instruction, or null. */
  Known of(String name) {
    return known.get(name);
  }

  /** Evaluates one instruction when all its operands are known (its operands come first). */
  void evaluate(HloInstruction ins) {
    if (!(ins.type() instanceof HloType.Array type)
        || type.numel() > MAX_ELEMENTS
        || HloType.dtype(type.elementType()) == null) {
      return;
    }
    Known[] in = new Known[ins.operands().size()];
    boolean dependent = false;
    for (int i = 0; i < in.length; i++) {
      in[i] = known.get(ins.operands().get(i));
      if (in[i] == null) {
        return;
      }
      dependent |= in[i].rankDependent();
    }
    double[] v;
    try {
      v = compute(ins, type, in);
    } catch (RuntimeException e) {
      return; // attributes that do not read are reported when the instruction is emitted
    }
    if (v != null && v.length == type.numel()) {
      boolean isRank = ins.opcode().equals("partition-id") || ins.opcode().equals("replica-id");
      known.put(ins.name(), new Known(type, round(v, type), dependent || isRank));
    }
  }

  private double[] compute(HloInstruction ins, HloType.Array type, Known[] in) {
    long[] dims = type.dims();
    switch (ins.opcode()) {
      case "constant":
        return HloLiteral.values(ins.operandText(), type);
      case "partition-id", "replica-id":
        return new double[] {rank};
      case "iota":
        {
          int d = (int) longAttr(ins, "iota_dimension");
          double[] out = new double[(int) type.numel()];
          long[] idx = new long[dims.length];
          for (int k = 0; k < out.length; k++) {
            out[k] = idx[d];
            increment(idx, dims);
          }
          return out;
        }
      case "reshape", "bitcast", "copy":
        return in.length == 1 ? in[0].values() : null;
      case "convert":
        return in[0].values();
      case "broadcast":
        {
          long[] map = ints(ins, "dimensions");
          long[] inDims = in[0].type().dims();
          double[] out = new double[(int) type.numel()];
          long[] idx = new long[dims.length];
          for (int k = 0; k < out.length; k++) {
            long flat = 0;
            for (int i = 0; i < map.length; i++) {
              flat = flat * inDims[i] + idx[(int) map[i]];
            }
            out[k] = in[0].values()[(int) flat];
            increment(idx, dims);
          }
          return out;
        }
      case "transpose":
        {
          long[] perm = ints(ins, "dimensions");
          long[] inDims = in[0].type().dims();
          double[] out = new double[(int) type.numel()];
          long[] idx = new long[dims.length];
          long[] strides = strides(inDims);
          for (int k = 0; k < out.length; k++) {
            long flat = 0;
            for (int i = 0; i < perm.length; i++) {
              flat += idx[i] * strides[(int) perm[i]];
            }
            out[k] = in[0].values()[(int) flat];
            increment(idx, dims);
          }
          return out;
        }
      case "slice":
        {
          long[][] r = rangesOf(ins);
          return gatherBox(in[0], dims, i -> r[i][0], i -> r[i][2]);
        }
      case "dynamic-slice":
        {
          long[] inDims = in[0].type().dims();
          long[] starts = new long[inDims.length];
          for (int i = 0; i < starts.length; i++) {
            starts[i] = clampStart((long) in[1 + i].scalar(), inDims[i], dims[i]);
          }
          return gatherBox(in[0], dims, i -> starts[i], i -> 1);
        }
      case "concatenate":
        {
          int d = (int) ints(ins, "dimensions")[0];
          double[] out = new double[(int) type.numel()];
          long[] idx = new long[dims.length];
          for (int k = 0; k < out.length; k++) {
            long pos = idx[d];
            int part = 0;
            while (pos >= in[part].type().dims()[d]) {
              pos -= in[part].type().dims()[d];
              part++;
            }
            long[] local = idx.clone();
            local[d] = pos;
            out[k] = in[part].values()[(int) flatten(local, in[part].type().dims())];
            increment(idx, dims);
          }
          return out;
        }
      case "add",
      "subtract",
      "multiply",
      "divide",
      "remainder",
      "maximum",
      "minimum",
      "and",
      "or",
      "xor",
      "compare",
      "power":
        return binary(ins, type, in[0], in[1]);
      case "negate":
        return map(in[0], x -> -x);
      case "abs":
        return map(in[0], Math::abs);
      case "not":
        return map(in[0], x -> type.elementType().equals("pred") ? (x == 0 ? 1 : 0) : ~(long) x);
      case "select":
        {
          double[] out = new double[(int) type.numel()];
          for (int k = 0; k < out.length; k++) {
            double p = in[0].values()[in[0].isScalar() ? 0 : k];
            out[k] = p != 0 ? in[1].values()[k] : in[2].values()[k];
          }
          return out;
        }
      case "clamp":
        {
          double[] out = new double[(int) type.numel()];
          for (int k = 0; k < out.length; k++) {
            double lo = in[0].values()[in[0].isScalar() ? 0 : k];
            double hi = in[2].values()[in[2].isScalar() ? 0 : k];
            out[k] = Math.min(Math.max(in[1].values()[k], lo), hi);
          }
          return out;
        }
      default:
        return null;
    }
  }

  private static double[] binary(HloInstruction ins, HloType.Array type, Known a, Known b) {
    if (a.values().length != b.values().length) {
      return null;
    }
    boolean integral = !isFloat(a.type().elementType());
    String dir =
        HloAttributes.unquote(ins.attribute("direction") == null ? "" : ins.attribute("direction"));
    double[] out = new double[a.values().length];
    for (int k = 0; k < out.length; k++) {
      double x = a.values()[k];
      double y = b.values()[k];
      out[k] =
          switch (ins.opcode()) {
            case "add" -> x + y;
            case "subtract" -> x - y;
            case "multiply" -> x * y;
            case "divide" ->
                integral ? (y == 0 ? Double.NaN : (double) ((long) x / (long) y)) : x / y;
            case "remainder" ->
                integral ? (y == 0 ? Double.NaN : (double) ((long) x % (long) y)) : x % y;
            case "power" -> Math.pow(x, y);
            case "maximum" -> Math.max(x, y);
            case "minimum" -> Math.min(x, y);
            case "and" -> (double) ((long) x & (long) y);
            case "or" -> (double) ((long) x | (long) y);
            case "xor" -> (double) ((long) x ^ (long) y);
            default ->
                switch (dir) {
                  case "EQ" -> x == y ? 1 : 0;
                  case "NE" -> x != y ? 1 : 0;
                  case "LT" -> x < y ? 1 : 0;
                  case "LE" -> x <= y ? 1 : 0;
                  case "GT" -> x > y ? 1 : 0;
                  case "GE" -> x >= y ? 1 : 0;
                  default -> Double.NaN;
                };
          };
      if (Double.isNaN(out[k]) && integral) {
        return null; // an integer division by zero: leave it to the program
      }
    }
    return out;
  }

  /** Integral element types hold integers: conversions truncate toward zero. */
  private static double[] round(double[] v, HloType.Array type) {
    if (isFloat(type.elementType())) {
      return v;
    }
    double[] out = v.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] = type.elementType().equals("pred") ? (out[i] != 0 ? 1 : 0) : (double) (long) out[i];
    }
    return out;
  }

  static boolean isFloat(String elementType) {
    return elementType.startsWith("f")
        || elementType.startsWith("bf")
        || elementType.startsWith("c");
  }

  /** XLA clamps a dynamic-slice start so that the slice fits. */
  static long clampStart(long start, long size, long sliceSize) {
    return Math.max(0, Math.min(start, size - sliceSize));
  }

  private interface IntOfDim {
    long at(int dim);
  }

  /**
   * The box of {@code outDims} elements starting at start(i), stepping stride(i), of a known array.
   */
  private static double[] gatherBox(Known x, long[] outDims, IntOfDim start, IntOfDim stride) {
    long[] inDims = x.type().dims();
    double[] out = new double[(int) product(outDims)];
    long[] idx = new long[outDims.length];
    for (int k = 0; k < out.length; k++) {
      long[] src = new long[inDims.length];
      for (int i = 0; i < src.length; i++) {
        src[i] = start.at(i) + idx[i] * stride.at(i);
      }
      out[k] = x.values()[(int) flatten(src, inDims)];
      increment(idx, outDims);
    }
    return out;
  }

  private static double[] map(Known x, DoubleUnaryOperator f) {
    double[] out = new double[x.values().length];
    for (int k = 0; k < out.length; k++) {
      out[k] = f.applyAsDouble(x.values()[k]);
    }
    return out;
  }

  private static long[][] rangesOf(HloInstruction ins) {
    String v = ins.attribute("slice");
    List<String> parts = HloAttributes.splitTopLevel(v.substring(1, v.length() - 1));
    long[][] out = new long[parts.size()][];
    for (int i = 0; i < out.length; i++) {
      String t = parts.get(i).strip();
      String[] p = t.substring(1, t.length() - 1).split(":");
      out[i] =
          new long[] {
            Long.parseLong(p[0].strip()),
            Long.parseLong(p[1].strip()),
            p.length > 2 ? Long.parseLong(p[2].strip()) : 1
          };
    }
    return out;
  }

  private static long[] ints(HloInstruction ins, String key) {
    String v = ins.attribute(key);
    String body = v.startsWith("{") ? v.substring(1, v.length() - 1) : v;
    return Arrays.stream(body.split(","))
        .filter(s -> !s.isBlank())
        .mapToLong(s -> Long.parseLong(s.strip()))
        .toArray();
  }

  private static long longAttr(HloInstruction ins, String key) {
    return Long.parseLong(ins.attribute(key).strip());
  }

  private static long[] strides(long[] dims) {
    long[] s = new long[dims.length];
    long m = 1;
    for (int i = dims.length - 1; i >= 0; i--) {
      s[i] = m;
      m *= dims[i];
    }
    return s;
  }

  private static long flatten(long[] idx, long[] dims) {
    long flat = 0;
    for (int i = 0; i < dims.length; i++) {
      flat = flat * dims[i] + idx[i];
    }
    return flat;
  }

  private static void increment(long[] idx, long[] dims) {
    for (int i = dims.length - 1; i >= 0; i--) {
      if (++idx[i] < dims[i]) {
        return;
      }
      idx[i] = 0;
    }
  }

  private static long product(long[] dims) {
    long n = 1;
    for (long d : dims) {
      n *= d;
    }
    return n;
  }
}
