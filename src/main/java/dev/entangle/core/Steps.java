package dev.entangle.core;

import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * How one operation builds its terms, recorded once when the graph is lowered and replayed into
 * each e-graph that needs them. Every step is what the lowering did, in its order: read a value
 * ({@link #REF}), build a node ({@link #ADD}; a one-operand concat or sum stands for its operand),
 * or, for facts about a whole collective group, state that two built terms are equal ({@link
 * #UNION}). Each step writes a slot; slots are the operation's local names for terms, with the
 * types the lowering saw.
 */
public final class Steps {
  /** Reads a value: {@code slot = refs.of(value)}. */
  public static final int REF = 0;

  /** Builds a node: {@code slot = builder.add(op, attrs, slots of kids)}. */
  public static final int ADD = 1;

  /** States that the terms of two slots are equal. */
  public static final int UNION = 2;

  private final int[] kind;
  private final int[] arg;
  private final long[][] attrs;
  private final int[][] kids;
  private final int[] slot;
  private final TypeInfo[] types;
  private final int factsFrom;
  private final long[] finite;
  private final long[] nonNegative;

  /** The slots a node or a fact of the steps has as an operand. */
  private final BitSet builtOn = new BitSet();

  Steps(
      int[] kind,
      int[] arg,
      long[][] attrs,
      int[][] kids,
      int[] slot,
      TypeInfo[] types,
      int factsFrom,
      long[] finite,
      long[] nonNegative) {
    this.kind = kind;
    this.arg = arg;
    this.attrs = attrs;
    this.kids = kids;
    this.slot = slot;
    this.types = types;
    this.factsFrom = factsFrom;
    this.finite = finite;
    this.nonNegative = nonNegative;
    for (int i = 0; i < kind.length; i++) {
      if (kind[i] != REF) {
        for (int k : kids[i]) {
          builtOn.set(k);
        }
      }
    }
  }

  /** Where a replay gets values from and states equalities. */
  public interface Refs {
    /** The term (a handle of the builder) standing for a value. */
    public int of(int valueId);

    /** Makes two handles equal; only collectives' group facts call it. */
    default void union(int a, int b) {
      throw new IllegalStateException("this replay cannot state equalities");
    }
  }

  public int size() {
    return kind.length;
  }

  /**
   * Whether the steps only copy or lay out values: every node they build is a reshape, permute,
   * expand, slice or concat.
   */
  public boolean layoutOnly() {
    // an opaque call is no core operator, and no layout
    return buildsOnly(op -> Op.of(op) != null && Op.of(op).kind == Op.Kind.LAYOUT);
  }

  /**
   * Whether the steps only view values in another shape: every node they build is a reshape or an
   * expand (a broadcast), as JAX's many {@code broadcast_in_dim} and {@code reshape} are.
   */
  public boolean viewOnly() {
    return buildsOnly(op -> op == Op.RESHAPE.id() || op == Op.EXPAND.id());
  }

  /** Whether every node the steps build has an operator id that {@code allowed} accepts. */
  private boolean buildsOnly(IntPredicate allowed) {
    for (int i = 0; i < kind.length; i++) {
      if (kind[i] == ADD && !allowed.test(arg[i])) {
        return false;
      }
    }
    return true;
  }

  public int kind(int i) {
    return kind[i];
  }

  /** For {@link #REF}: the value id; for {@link #ADD}: the operator id. */
  public int arg(int i) {
    return arg[i];
  }

  /** For {@link #ADD}: the node's attributes. */
  public long[] attrs(int i) {
    return attrs[i];
  }

  /** For {@link #ADD}: the slots of the node's operands; for {@link #UNION}: the two slots. */
  public int[] kids(int i) {
    return kids[i];
  }

  /** The slot step {@code i} writes (for {@link #UNION}: -1). */
  public int slot(int i) {
    return slot[i];
  }

  /** The number of slots. */
  public int slots() {
    return types.length;
  }

  /** The type the lowering saw for a slot. */
  public TypeInfo type(int slot) {
    return types[slot];
  }

  /** Whether every element of a slot is shown a finite number ({@link NumberFacts}). */
  public boolean finite(int slot) {
    return bit(finite, slot);
  }

  /** Whether every element of a slot is shown at least 0 or +inf ({@link NumberFacts}). */
  public boolean nonNegative(int slot) {
    return bit(nonNegative, slot);
  }

  private static boolean bit(long[] words, int i) {
    int w = i >>> 6;
    return w < words.length && (words[w] & (1L << i)) != 0;
  }

  /**
   * Replays the steps into {@code b}; returns the handle of every slot (-1 for a read nothing uses:
   * see {@link #read}).
   */
  public int[] replay(Refs refs, TermBuilder b, int[] results) {
    return replay(refs, b, true, results);
  }

  /**
   * Replays the steps into {@code b}; without {@code facts}, only those that compute the results (a
   * collective group's facts, which only state equalities, are left out: for evaluation).
   */
  public int[] replay(Refs refs, TermBuilder b, boolean facts, int[] results) {
    int[] h = new int[types.length];
    Arrays.fill(h, -1);
    int end = facts ? kind.length : factsFrom;
    for (int i = 0; i < end; i++) {
      switch (kind[i]) {
        case REF -> {
          if (read(i, results)) {
            h[slot[i]] = refs.of(arg[i]);
          }
        }
        case ADD -> {
          int[] k = kids[i];
          int[] handles = new int[k.length];
          for (int j = 0; j < k.length; j++) {
            handles[j] = h[k[j]];
          }
          h[slot[i]] = b.add(arg[i], attrs[i], handles);
        }
        default -> refs.union(h[kids[i][0]], h[kids[i][1]]);
      }
    }
    return h;
  }

  /**
   * Whether read step {@code i} is needed: a later step builds on its slot, or it is one of the
   * {@code results}. A lowering may read an argument for its shape alone ({@code ones_like} of a
   * loss): a replay does not ask for such a value, which may have no term where it is replayed.
   */
  public boolean read(int i, int[] results) {
    if (kind[i] != REF) {
      return false;
    }
    if (builtOn.get(slot[i])) {
      return true;
    }
    for (int r : results) {
      if (r == slot[i]) {
        return true;
      }
    }
    return false;
  }

  /**
   * The elements of a slot's term when it is built from constants alone ({@link KnownValues}): the
   * values it reads as {@code refs} knows them (null where it does not), else null.
   */
  public Tensor known(int slotId, IntFunction<Tensor> refs) {
    return known(slotId, definingSteps(), refs, new HashMap<>());
  }

  /** Per slot, the first step that writes it (a read or a node), or -1. */
  public int[] definingSteps() {
    int[] stepOf = new int[types.length];
    Arrays.fill(stepOf, -1);
    for (int i = 0; i < kind.length; i++) {
      if (kind[i] != UNION && stepOf[slot[i]] < 0) {
        stepOf[slot[i]] = i;
      }
    }
    return stepOf;
  }

  private Tensor known(
      int s, int[] stepOf, IntFunction<Tensor> refs, HashMap<Integer, Tensor> memo) {
    if (s < 0 || s >= stepOf.length || stepOf[s] < 0) {
      return null;
    }
    if (memo.containsKey(s)) {
      return memo.get(s);
    }
    int i = stepOf[s];
    Tensor v;
    if (kind[i] == REF) {
      v = refs.apply(arg[i]);
    } else {
      Tensor[] operands = new Tensor[kids[i].length];
      v = null;
      boolean all = true;
      for (int j = 0; j < operands.length && all; j++) {
        operands[j] = known(kids[i][j], stepOf, refs, memo);
        all = operands[j] != null;
      }
      if (all) {
        v = KnownValues.apply(arg[i], attrs[i], operands, types[s]);
      }
    }
    memo.put(s, v);
    return v;
  }

  /** Records steps as a lowering performs them; a {@link TermBuilder} whose handles are slots. */
  public static final class Recorder implements TermBuilder {
    private final TypeSource types;
    private int[] kind = new int[16];
    private int[] arg = new int[16];
    private long[][] attrs = new long[16][];
    private int[][] kids = new int[16][];
    private int[] slot = new int[16];
    private int n;
    private TypeInfo[] slotTypes = new TypeInfo[16];
    private int slots;
    private int factsFrom = -1;
    private final BitSet finite = new BitSet();
    private final BitSet nonNegative = new BitSet();
    private boolean folded;
    private final HashMap<Object, Integer> memo = new HashMap<>();

    /** Infers node types and knows value types. */
    public interface TypeSource {
      TypeInfo infer(int op, long[] attrs, TypeInfo[] kids);

      TypeInfo valueType(int valueId);

      /** Whether every element of a value is a finite number ({@link NumberFacts}). */
      default boolean finite(int valueId) {
        return false;
      }

      /** Whether every element of a value is at least 0 or +inf ({@link NumberFacts}). */
      default boolean nonNegative(int valueId) {
        return false;
      }

      /** Told of a guard the facts known now left undecided (one that a fact might decide). */
      default void undecided() {}

      /** The value of every element of a value, when the lowering knows it; else null. */
      default Double constant(int valueId) {
        return null;
      }

      /** The elements of a value computed from constants alone ({@link KnownValues}), or null. */
      default Tensor known(int valueId) {
        return null;
      }
    }

    public Recorder(TypeSource types) {
      this.types = types;
    }

    /** Records reading a value; returns its slot (one slot per value, however often it is read). */
    public int ref(int valueId) {
      Integer s = memo.get(valueId);
      if (s == null) {
        TypeInfo t = types.valueType(valueId);
        Double c = t.constant() == null ? types.constant(valueId) : null;
        s = newSlot(c == null ? t : t.withConstant(c));
        memo.put(valueId, s);
        finite.set(s, types.finite(valueId));
        nonNegative.set(s, types.nonNegative(valueId));
      }
      event(REF, valueId, null, null, s);
      return s;
    }

    @Override
    public int add(int op, long[] a, int... k) {
      Op core = Op.of(op);
      Boolean known = core != null && core.kind == Op.Kind.COMPARE ? decided(core, k) : null;
      if (known == null && guard(core, k)) {
        types.undecided();
      }
      int out;
      if (k.length == 1 && core != null && core.isIdentityOfOne()) {
        out = k[0];
      } else if (core == Op.WHERE && slotTypes[k[0]].constant() != null) {
        folded = true;
        return slotTypes[k[0]].constant() != 0 ? k[1] : k[2]; // a mask known everywhere
      } else if ((core == Op.ABS || core == Op.RELU) && nonNegative.get(k[0])) {
        return k[0]; // the absolute value of what is never negative
      } else if (known != null) {
        folded = true;
        return filled(known ? 1 : 0, Dtype.BOOL.code(), slotTypes[k[0]].shape());
      } else {
        NodeKey key = new NodeKey(op, a.clone(), k.clone());
        Integer s = memo.get(key);
        if (s == null) {
          TypeInfo[] kt = new TypeInfo[k.length];
          boolean[] kf = new boolean[k.length];
          boolean[] kn = new boolean[k.length];
          for (int i = 0; i < k.length; i++) {
            kt[i] = slotTypes[k[i]];
            kf[i] = finite.get(k[i]);
            kn[i] = nonNegative.get(k[i]);
          }
          TypeInfo t = types.infer(op, a, kt);
          s = newSlot(t);
          memo.put(key, s);
          finite.set(s, NumberFacts.finite(op, a, kt, kf, t));
          nonNegative.set(s, NumberFacts.nonNegative(op, a, kt, kn, kf, t));
        }
        out = s;
      }
      event(ADD, op, a.clone(), k.clone(), out);
      return out;
    }

    /**
     * The elements of a handle's term when it is built from constants alone (small ones: {@link
     * KnownValues}), else null.
     */
    @Override
    public Tensor known(int handle) {
      return finish().known(handle, types::known);
    }

    /** Whether every element of a slot is shown a finite number ({@link NumberFacts}). */
    public boolean finite(int handle) {
      return finite.get(handle);
    }

    /**
     * A comparison's result when finiteness decides it, else null: a finite operand against an
     * infinity or NaN (as {@code abs(m) == inf} tests for one), or a finite operand against itself
     * (JAX's {@code isnan(x)} is {@code x != x}).
     */
    private Boolean decided(Op cmp, int[] k) {
      if (k.length != 2) {
        return null;
      }
      double a;
      double b;
      if (k[0] == k[1] && finite(k[0])) {
        a = 0;
        b = 0;
      } else if (finite(k[0]) && infiniteOrNaN(k[1])) {
        a = 0;
        b = slotTypes[k[1]].constant();
      } else if (finite(k[1]) && infiniteOrNaN(k[0])) {
        a = slotTypes[k[0]].constant();
        b = 0;
      } else if (belowOrAtZero(k[1]) && nonNegative.get(k[0])) {
        return againstNonNegative(cmp, slotTypes[k[1]].constant());
      } else if (belowOrAtZero(k[0]) && nonNegative.get(k[1])) {
        return againstNonNegative(mirrored(cmp), slotTypes[k[0]].constant());
      } else {
        return null;
      }
      return switch (cmp) {
        case EQ -> a == b;
        case NE -> a != b;
        case LT -> a < b;
        case LE -> a <= b;
        case GT -> a > b;
        case GE -> a >= b;
        default -> null;
      };
    }

    /** The comparison with its operands swapped ({@code a < b} is {@code b > a}). */
    private static Op mirrored(Op cmp) {
      return switch (cmp) {
        case LT -> Op.GT;
        case LE -> Op.GE;
        case GT -> Op.LT;
        case GE -> Op.LE;
        default -> cmp;
      };
    }

    /**
     * Whether a slot holds one known floating number, at most 0. (Tests of ids are left to the
     * e-graph's bounds, which keep the mask they are part of: a shard's {@code id < 0 or id > hi}.)
     */
    private boolean belowOrAtZero(int slot) {
      Double c = slotTypes[slot].constant();
      return c != null && c <= 0 && Dtype.isFloating(slotTypes[slot].dtype());
    }

    /**
     * {@code x cmp c} for an x whose every element is at least 0 or +inf ({@link NumberFacts}) and
     * a constant {@code c <= 0} (a sum of exponentials against 0, as JAX's derivative of {@code
     * log(abs(s))} tests its sign), or null when it depends on x.
     */
    private static Boolean againstNonNegative(Op cmp, double c) {
      boolean below = c < 0;
      return switch (cmp) {
        case GE -> true;
        case LT -> false;
        case GT, NE -> below ? true : null;
        case LE, EQ -> below ? false : null;
        default -> null;
      };
    }

    /**
     * Whether a node is a guard that a fact not known now would decide: an absolute value of what
     * may be negative, or a comparison with an infinity or NaN of what may not be finite.
     */
    private boolean guard(Op core, int[] k) {
      if (core == Op.ABS) {
        return !nonNegative.get(k[0]);
      }
      return core != null
          && core.kind == Op.Kind.COMPARE
          && k.length == 2
          && (infiniteOrNaN(k[0]) || infiniteOrNaN(k[1]) || k[0] == k[1]);
    }

    /**
     * Whether a test was decided while recording (here, or as {@link #decidedTest} notes), so that
     * a value the steps read may not be needed by the results.
     */
    public boolean folded() {
      return folded;
    }

    /** Notes a test the lowering decided itself (a test of finiteness of a finite value). */
    public void decidedTest() {
      folded = true;
    }

    /** Tells the type source of a guard left undecided (a lowering's own test of finiteness). */
    public void undecided() {
      types.undecided();
    }

    private boolean infiniteOrNaN(int slot) {
      Double c = slotTypes[slot].constant();
      return c != null && !Double.isFinite(c);
    }

    /** The steps from here on state facts about the results; evaluation leaves them out. */
    public void beginFacts() {
      factsFrom = n;
    }

    public void union(int a, int b) {
      event(UNION, 0, null, new int[] {a, b}, -1);
    }

    @Override
    public TypeInfo type(int handle) {
      return slotTypes[handle];
    }

    public Steps finish() {
      return new Steps(
          Arrays.copyOf(kind, n),
          Arrays.copyOf(arg, n),
          Arrays.copyOf(attrs, n),
          Arrays.copyOf(kids, n),
          Arrays.copyOf(slot, n),
          Arrays.copyOf(slotTypes, slots),
          factsFrom < 0 ? n : factsFrom,
          finite.toLongArray(),
          nonNegative.toLongArray());
    }

    private int newSlot(TypeInfo t) {
      if (slots == slotTypes.length) {
        slotTypes = Arrays.copyOf(slotTypes, slots * 2);
      }
      slotTypes[slots] = t;
      return slots++;
    }

    private void event(int k, int a, long[] at, int[] ks, int s) {
      if (n == kind.length) {
        int c = n * 2;
        kind = Arrays.copyOf(kind, c);
        arg = Arrays.copyOf(arg, c);
        attrs = Arrays.copyOf(attrs, c);
        kids = Arrays.copyOf(kids, c);
        slot = Arrays.copyOf(slot, c);
      }
      kind[n] = k;
      arg[n] = a;
      attrs[n] = at;
      kids[n] = ks;
      slot[n] = s;
      n++;
    }
  }
}
