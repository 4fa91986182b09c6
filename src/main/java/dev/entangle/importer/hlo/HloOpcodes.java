package dev.entangle.importer.hlo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every opcode of XLA's instruction set (its {@code HLO_OPCODE_LIST}) and what the importer does
 * with it: the import gives it its meaning, the core language lowers it ({@code
 * lower.xla.XlaLowering}), it stays an opaque function of its operands and attributes (equal only
 * to the same instruction on equal operands), or it is refused with a reason. An opcode outside the
 * list is refused as unknown.
 */
final class HloOpcodes {
  /** What the importer does with an opcode. */
  enum Status {
    /** The importer gives it its meaning (parameters, tuples, calls, collectives, rank ids). */
    IMPORTED,
    /** A node {@code xla.OPCODE} that the core language lowers. */
    LOWERED,
    /** A node {@code xla.OPCODE} kept opaque: no lowering exists for it yet. */
    OPAQUE,
    /** Refused with a located error: the checker cannot model it. */
    REFUSED
  }

  /**
   * An opcode's status and, for a refused or opaque one, why.
   *
   * @param status what the importer does
   * @param reason why it is refused or opaque (empty otherwise)
   */
  record Entry(Status status, String reason) {}

  private static final Map<String, Entry> TABLE = new LinkedHashMap<>();

  private static final String NO_LOWERING =
      "no lowering yet: it maps only where G_d computes the same instruction on related operands";

  private static final String LOOPS =
      "the checker has no loops; dump the program after XLA unrolls them, or with the loop"
          + " written out";

  private static final String RANDOM =
      "random numbers differ from rank to rank and run to run, so no value of G_d equals them; give"
          + " the random values to the program as parameters";

  private static final String IO =
      "host transfers (infeed, outfeed, send, recv) bring values from outside the program; give"
          + " them as parameters";

  private static final String TOKENS =
      "tokens order side effects and carry no values the checker could compare; dump the program"
          + " without host transfers";

  private static final String ASYNC =
      "asynchronous wrappers appear only after XLA's scheduling passes; dump the program before"
          + " them (after SPMD partitioning)";

  private static final String DYNAMIC = "dynamic shapes are not supported; dump with static shapes";

  private static final String COLLECTIVE =
      "this collective is not supported yet; the supported ones are all-reduce, all-gather,"
          + " reduce-scatter, all-to-all and collective-permute";

  static {
    imported(
        "parameter",
        "constant",
        "tuple",
        "conditional",
        "get-tuple-element",
        "fusion",
        "call",
        "partition-id",
        "replica-id",
        "dynamic-slice",
        "opt-barrier",
        "domain",
        "all-reduce",
        "all-reduce-start",
        "all-reduce-done",
        "all-gather",
        "all-gather-start",
        "all-gather-done",
        "reduce-scatter",
        "all-to-all",
        "collective-permute",
        "collective-permute-start",
        "collective-permute-done");
    lowered(
        "iota",
        "broadcast",
        "reshape",
        "bitcast",
        "copy",
        "transpose",
        "slice",
        "concatenate",
        "dot",
        "convolution",
        "convert",
        "add",
        "subtract",
        "multiply",
        "divide",
        "power",
        "maximum",
        "minimum",
        "and",
        "or",
        "xor",
        "not",
        "remainder",
        "atan2",
        "shift-left",
        "shift-right-logical",
        "shift-right-arithmetic",
        "compare",
        "select",
        "clamp",
        "exponential",
        "log",
        "logistic",
        "sqrt",
        "rsqrt",
        "tanh",
        "negate",
        "abs",
        "sine",
        "cosine",
        "tan",
        "floor",
        "ceil",
        "sign",
        "erf",
        "exponential-minus-one",
        "log-plus-one",
        "round-nearest-afz",
        "round-nearest-even",
        "cbrt",
        "is-finite",
        "popcnt",
        "count-leading-zeros",
        "reduce-precision",
        "bitcast-convert",
        "reduce",
        "reduce-window",
        "gather",
        "pad",
        "dynamic-update-slice",
        "custom-call");
    opaque(
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atan",
        "atanh",
        "cosh",
        "sinh",
        "complex",
        "real",
        "imag",
        "mulhi",
        "reverse",
        "sort",
        "topk",
        "scatter",
        "select-and-scatter",
        "fft",
        "cholesky",
        "triangular-solve",
        "map",
        "batch-norm-training",
        "batch-norm-inference",
        "batch-norm-grad",
        "ragged-dot",
        "scaled-dot",
        "stochastic-convert",
        "get-dimension-size");
    refused(LOOPS, "while", "scan");
    refused(RANDOM, "rng", "rng-bit-generator", "rng-get-and-update-state");
    refused(IO, "infeed", "outfeed", "send", "send-done", "recv", "recv-done");
    refused(TOKENS, "after-all", "add-dependency");
    refused(ASYNC, "async-start", "async-update", "async-done", "copy-start", "copy-done");
    refused(DYNAMIC, "set-dimension-size", "dynamic-reshape");
    refused(COLLECTIVE, "collective-broadcast", "collective-reduce", "ragged-all-to-all");
    refused("its semantics are not documented; it is not supported", "shuffle");
  }

  /**
   * The operand counts of the opcodes that take a fixed number (the arities of XLA's {@code
   * HLO_OPCODE_LIST}); the others are variadic.
   */
  private static final Map<String, Integer> ARITY =
      arities(
          "abs", 1,
          "acos", 1,
          "acosh", 1,
          "add", 2,
          "add-dependency", 2,
          "all-gather-done", 1,
          "all-reduce-done", 1,
          "and", 2,
          "asin", 1,
          "asinh", 1,
          "async-done", 1,
          "atan", 1,
          "atan2", 2,
          "atanh", 1,
          "batch-norm-grad", 5,
          "batch-norm-inference", 5,
          "batch-norm-training", 3,
          "bitcast", 1,
          "bitcast-convert", 1,
          "broadcast", 1,
          "cbrt", 1,
          "ceil", 1,
          "cholesky", 1,
          "clamp", 3,
          "count-leading-zeros", 1,
          "collective-permute-done", 1,
          "compare", 2,
          "complex", 2,
          "constant", 0,
          "convert", 1,
          "copy", 1,
          "copy-done", 1,
          "copy-start", 1,
          "cosine", 1,
          "cosh", 1,
          "divide", 2,
          "domain", 1,
          "dot", 2,
          "erf", 1,
          "exponential", 1,
          "exponential-minus-one", 1,
          "fft", 1,
          "floor", 1,
          "gather", 2,
          "get-dimension-size", 1,
          "get-tuple-element", 1,
          "imag", 1,
          "infeed", 1,
          "iota", 0,
          "is-finite", 1,
          "log", 1,
          "log-plus-one", 1,
          "logistic", 1,
          "maximum", 2,
          "minimum", 2,
          "mulhi", 2,
          "multiply", 2,
          "negate", 1,
          "not", 1,
          "opt-barrier", 1,
          "or", 2,
          "outfeed", 2,
          "pad", 2,
          "parameter", 0,
          "partition-id", 0,
          "popcnt", 1,
          "power", 2,
          "ragged-all-to-all", 6,
          "ragged-dot", 3,
          "real", 1,
          "recv", 1,
          "recv-done", 1,
          "reduce-precision", 1,
          "remainder", 2,
          "replica-id", 0,
          "reshape", 1,
          "reverse", 1,
          "rng-bit-generator", 1,
          "rng-get-and-update-state", 0,
          "round-nearest-afz", 1,
          "round-nearest-even", 1,
          "rsqrt", 1,
          "scaled-dot", 4,
          "select", 3,
          "select-and-scatter", 3,
          "send", 2,
          "send-done", 1,
          "set-dimension-size", 2,
          "shift-left", 2,
          "shift-right-arithmetic", 2,
          "shift-right-logical", 2,
          "shuffle", 1,
          "sign", 1,
          "sine", 1,
          "sinh", 1,
          "slice", 1,
          "sqrt", 1,
          "stochastic-convert", 2,
          "subtract", 2,
          "tan", 1,
          "tanh", 1,
          "topk", 1,
          "transpose", 1,
          "triangular-solve", 2,
          "while", 1,
          "xor", 2);

  private HloOpcodes() {}

  /** The number of operands an opcode takes, or -1 when it takes any number. */
  static int arity(String opcode) {
    return ARITY.getOrDefault(opcode, -1);
  }

  private static Map<String, Integer> arities(Object... pairs) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put((String) pairs[i], (Integer) pairs[i + 1]);
    }
    return out;
  }

  /** The entry of an opcode, or null when it is not an XLA opcode. */
  static Entry of(String opcode) {
    return TABLE.get(opcode);
  }

  /** Every opcode with its entry, in the order above. */
  static Map<String, Entry> all() {
    return Collections.unmodifiableMap(TABLE);
  }

  private static void imported(String... opcodes) {
    for (String o : opcodes) {
      TABLE.put(o, new Entry(Status.IMPORTED, ""));
    }
  }

  private static void lowered(String... opcodes) {
    for (String o : opcodes) {
      TABLE.put(o, new Entry(Status.LOWERED, ""));
    }
  }

  private static void opaque(String... opcodes) {
    for (String o : opcodes) {
      TABLE.put(o, new Entry(Status.OPAQUE, NO_LOWERING));
    }
  }

  private static void refused(String reason, String... opcodes) {
    for (String o : opcodes) {
      TABLE.put(o, new Entry(Status.REFUSED, reason));
    }
  }
}
