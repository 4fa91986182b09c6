package dev.entangle.core;

import java.util.Arrays;
import java.util.HashMap;
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

  Steps(
      int[] kind,
      int[] arg,
      long[][] attrs,
      int[][] kids,
      int[] slot,
      TypeInfo[] types,
      int factsFrom) {
    this.kind = kind;
    this.arg = arg;
    this.attrs = attrs;
    this.kids = kids;
    this.slot = slot;
    this.types = types;
    this.factsFrom = factsFrom;
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

  /** Replays the steps into {@code b}; returns the handle of every slot. */
  public int[] replay(Refs refs, TermBuilder b) {
    return replay(refs, b, true);
  }

  /**
   * Replays the steps into {@code b}; without {@code facts}, only those that compute the results (a
   * collective group's facts, which only state equalities, are left out: for evaluation).
   */
  public int[] replay(Refs refs, TermBuilder b, boolean facts) {
    int[] h = new int[types.length];
    Arrays.fill(h, -1);
    int end = facts ? kind.length : factsFrom;
    for (int i = 0; i < end; i++) {
      switch (kind[i]) {
        case REF -> h[slot[i]] = refs.of(arg[i]);
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
    private final HashMap<Object, Integer> memo = new HashMap<>();

    /** Infers node types and knows value types. */
    public interface TypeSource {
      TypeInfo infer(int op, long[] attrs, TypeInfo[] kids);

      TypeInfo valueType(int valueId);
    }

    public Recorder(TypeSource types) {
      this.types = types;
    }

    /** Records reading a value; returns its slot (one slot per value, however often it is read). */
    public int ref(int valueId) {
      Integer s = memo.get(valueId);
      if (s == null) {
        s = newSlot(types.valueType(valueId));
        memo.put(valueId, s);
      }
      event(REF, valueId, null, null, s);
      return s;
    }

    @Override
    public int add(int op, long[] a, int... k) {
      Op core = Op.of(op);
      int out;
      if (k.length == 1 && core != null && core.isIdentityOfOne()) {
        out = k[0];
      } else {
        NodeKey key = new NodeKey(op, a.clone(), k.clone());
        Integer s = memo.get(key);
        if (s == null) {
          TypeInfo[] kt = new TypeInfo[k.length];
          for (int i = 0; i < k.length; i++) {
            kt[i] = slotTypes[k[i]];
          }
          s = newSlot(types.infer(op, a, kt));
          memo.put(key, s);
        }
        out = s;
      }
      event(ADD, op, a.clone(), k.clone(), out);
      return out;
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
          factsFrom < 0 ? n : factsFrom);
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
