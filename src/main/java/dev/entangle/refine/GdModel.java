package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreRelation;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Dtype;
import dev.entangle.core.IdRange;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.ValueKind;
import dev.entangle.lower.IdenticalValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * G_d as the checker explores it: the lowered program, with per-value flags at hand: whether a
 * value is carried as its term (computed from constants alone, or without defined contents),
 * whether it has no defined contents, and whether G_d returns it. Copies of one computation are one
 * value ({@link IdenticalValues}): the checker uses representatives only, and {@link #deps} and
 * {@link #users} link representatives.
 */
final class GdModel {
  final CoreProgram program;

  /** Inlined as its term: a constant, or an undefined value (which never waits on anything). */
  final boolean[] constant;

  final boolean[] undefined;
  final boolean[] output;
  private final boolean[] input;

  private final int[] rep;
  private final int[] definer;
  private final int[][] deps;
  private final int[][] users;

  /**
   * A value with more users than this is hot: one every layer reads, such as a rotary table that
   * every layer's attention multiplies by (its copies are one value).
   */
  static final int HOT_USERS = 32;

  /** Per hot representative, {@link #directUsers}; null for the others. */
  private final int[][] directUsers;

  private final int hotUsers;

  GdModel(CoreProgram program) {
    this(program, HOT_USERS);
  }

  /** The model of {@code program}, where values with more than {@code hotUsers} users are hot. */
  GdModel(CoreProgram program, int hotUsers) {
    this.program = program;
    this.hotUsers = hotUsers;
    int n = program.size();
    IdenticalValues.Copies copies = IdenticalValues.of(program);
    rep = copies.rep();
    definer = copies.definer();
    deps = new int[n][];
    for (int v = 0; v < n; v++) {
      if (rep[v] == v) {
        deps[v] = distinct(program.deps(definer[v]), rep);
      }
    }
    users = usersOf(program, rep);
    constant = new boolean[n];
    indexView = new byte[n];
    undefined = new boolean[n];
    output = new boolean[n];
    input = new boolean[n];
    for (CoreValue v : program.values()) {
      input[v.id()] = v.kind() == ValueKind.INPUT;
      constant[v.id()] = v.kind().inlined();
      undefined[v.id()] = v.kind() == ValueKind.UNDEFINED;
      output[v.id()] = v.output();
    }
    directUsers = new int[n][];
    for (int v = 0; v < n; v++) {
      if (rep[v] == v && hot(v)) {
        directUsers[v] = directUsersOf(v);
      }
    }
  }

  /**
   * Whether the value is ids or a mask (an integer or bool tensor) that its definition only views
   * in another shape (reshape, expand: {@link dev.entangle.core.Steps#viewOnly}); exploration
   * counts no step for it, so that the plumbing of a masked lookup (JAX reshapes and broadcasts its
   * ids and masks between most operations) is brought in whole.
   */
  boolean indexView(int id) {
    int r = rep[id];
    if (indexView[r] == 0) {
      CoreOp d = program.definition(definer[r]);
      TypeInfo t = program.value(r).type();
      boolean view =
          d != null
              && d.steps().viewOnly()
              && t != null
              && !t.isTuple()
              && Dtype.of(t.dtype()).isIntegral();
      indexView[r] = (byte) (view ? 1 : 2);
    }
    return indexView[r] == 1;
  }

  /**
   * {@link #indexView} of each representative once asked: 1 yes, 2 no, 0 not yet asked (threads
   * checking ahead may ask at once; each writes the same answer).
   */
  private final byte[] indexView;

  /** Whether the value has more users than make a value hot ({@link #HOT_USERS} by default). */
  boolean hot(int id) {
    return users(id).length > hotUsers;
  }

  /**
   * The users of a hot value that read no other computed value but hot ones (the rest of what they
   * read is G_d inputs and constants), ascending.
   */
  int[] directUsers(int id) {
    return directUsers[rep[id]];
  }

  private int[] directUsersOf(int v) {
    int[] out = new int[users[v].length];
    int k = 0;
    for (int u : users[v]) {
      boolean direct = true;
      for (int d : deps[u]) {
        direct &= d == v || input[d] || constant[d] || hot(d);
      }
      if (direct) {
        out[k++] = u;
      }
    }
    return Arrays.copyOf(out, k);
  }

  /**
   * Whether an output relation may use the value: G_d's outputs, and its inputs, which the user
   * supplies and so has at hand.
   */
  boolean available(int id) {
    return output[id] || input(id);
  }

  /** Whether the value is a G_d input (given by the user, not computed). */
  boolean input(int id) {
    return input[id];
  }

  CoreValue value(int id) {
    return program.value(id);
  }

  /** The representative of the value's copies (itself when it has none). */
  int rep(int id) {
    return rep[id];
  }

  /**
   * For each representative, the representatives computed from any of its copies, ascending. A
   * value that passes an input on unchanged is that input: it adds no users.
   */
  private static int[][] usersOf(CoreProgram program, int[] rep) {
    int n = rep.length;
    int[] count = new int[n];
    for (int v = 0; v < n; v++) {
      if (program.value(rep[v]).op() >= 0) {
        for (int d : program.deps(v)) {
          count[rep[d]]++;
        }
      }
    }
    int[][] all = new int[n][];
    for (int v = 0; v < n; v++) {
      all[v] = new int[count[v]];
      count[v] = 0;
    }
    for (int v = 0; v < n; v++) {
      if (program.value(rep[v]).op() >= 0) {
        for (int d : program.deps(v)) {
          all[rep[d]][count[rep[d]]++] = rep[v];
        }
      }
    }
    for (int v = 0; v < n; v++) {
      Arrays.sort(all[v]);
      all[v] = sortedDistinct(all[v], v);
    }
    return all;
  }

  /** The values of {@code ids} (sorted ascending) without repeats, leaving out {@code self}. */
  static int[] sortedDistinct(int[] ids, int self) {
    int k = 0;
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] != self && (k == 0 || ids[k - 1] != ids[i])) {
        ids[k++] = ids[i];
      }
    }
    return k == ids.length ? ids : Arrays.copyOf(ids, k);
  }

  /** The representatives of {@code ids} without repeats, in first-seen order. */
  private static int[] distinct(int[] ids, int[] rep) {
    int[] out = new int[ids.length];
    int k = 0;
    for (int id : ids) {
      int r = rep[id];
      boolean seen = false;
      for (int j = 0; j < k && !seen; j++) {
        seen = out[j] == r;
      }
      if (!seen) {
        out[k++] = r;
      }
    }
    return k == out.length ? out : Arrays.copyOf(out, k);
  }

  /** The relation with every G_d value replaced by its representative. */
  CoreRelation representing(CoreRelation rel) {
    Map<Integer, List<CoreTerm>> inputs = new LinkedHashMap<>();
    for (Map.Entry<Integer, List<CoreTerm>> e : rel.inputs().entrySet()) {
      inputs.put(e.getKey(), representing(e.getValue()));
    }
    List<List<CoreTerm>> equalities = new ArrayList<>();
    for (List<CoreTerm> group : rel.equalities()) {
      equalities.add(representing(group));
    }
    List<CoreRelation.Expect> expects = new ArrayList<>();
    for (CoreRelation.Expect e : rel.expects()) {
      expects.add(new CoreRelation.Expect(e.gs(), e.gd().mapLeaves(rep), e.text()));
    }
    Map<Integer, IdRange> ranges = new LinkedHashMap<>();
    // copies with ranges that have no value in common keep none (fewer facts, never wrong ones)
    rel.ranges().forEach((v, range) -> ranges.merge(rep[v], range, IdRange::intersect));
    return new CoreRelation(inputs, equalities, rel.outputs(), expects, ranges);
  }

  private List<CoreTerm> representing(List<CoreTerm> terms) {
    List<CoreTerm> out = new ArrayList<>(terms.size());
    for (CoreTerm t : terms) {
      out.add(t.mapLeaves(rep));
    }
    return out;
  }

  /** The copy whose operation computes the value's representative ({@link IdenticalValues}). */
  int definer(int id) {
    return definer[rep[id]];
  }

  /** The representatives of the values the value's representative reads. */
  int[] deps(int id) {
    return deps[rep[id]];
  }

  /** The representatives of the values computed from any copy of the value. */
  int[] users(int id) {
    return users[rep[id]];
  }

  int size() {
    return program.size();
  }
}
