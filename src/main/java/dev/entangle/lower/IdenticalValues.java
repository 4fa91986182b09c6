package dev.entangle.lower;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.NodeKey;
import dev.entangle.core.Steps;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.ValueKind;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds the G_d values that are the same computation: the same operation with the same attributes
 * over the same values, recursively down to G_d's inputs. A model that recomputes one thing in
 * every layer (the slice of a rotary table each layer takes, say) or on every rank (what each rank
 * computes from an all-reduced tensor) has one value where it has many copies. Each value maps to
 * one representative of its copies ({@link #preference}); the checker sees representatives only, so
 * a check's work does not grow with the number of copies.
 *
 * <p>Nothing new is assumed: an e-graph that held two copies would merge them too (congruence),
 * which is why this is sound. Inputs are never merged (two inputs are different tensors), nor
 * values without defined contents (their terms name the node they come from).
 */
public final class IdenticalValues {
  private IdenticalValues() {}

  /**
   * The copies found.
   *
   * @param rep for each value, the representative of its copies
   * @param definer for each representative, the copy whose operation computes it (not one that
   *     passes another copy on, as a {@code wait_tensor} passes on its collective's result)
   */
  public record Copies(int[] rep, int[] definer) {}

  /** Finds the copies in a program. */
  public static Copies of(CoreProgram p) {
    int n = p.size();
    int[] handle = new int[n];
    Arrays.fill(handle, -1);
    HashConsing terms = new HashConsing();
    Map<Integer, int[]> opHandles = new HashMap<>();
    Steps.Refs refs =
        new Steps.Refs() {
          @Override
          public int of(int v) {
            return handle[v];
          }
        };
    int[] stack = new int[n];
    for (int root = 0; root < n; root++) {
      int top = 0;
      stack[top++] = root;
      while (top > 0) {
        int v = stack[top - 1];
        if (handle[v] >= 0) {
          top--;
          continue;
        }
        boolean ready = true;
        for (int d : p.deps(v)) {
          if (handle[d] < 0) {
            stack[top++] = d;
            ready = false;
          }
        }
        if (!ready) {
          continue;
        }
        top--;
        CoreValue value = p.value(v);
        if (value.op() < 0 || value.kind() == ValueKind.UNDEFINED) {
          handle[v] = terms.leaf(v);
        } else {
          CoreOp op = p.op(value.op());
          int[] out = opHandles.get(op.id());
          if (out == null) {
            out = p.replay(op, refs, terms, false);
            opHandles.put(op.id(), out);
          }
          handle[v] = out[value.item()];
        }
      }
    }
    int[] rep = new int[n];
    int[] first = new int[terms.size()];
    Arrays.fill(first, -1);
    for (int v = 0; v < n; v++) {
      int r = first[handle[v]];
      if (r < 0 || preference(p.value(v)) > preference(p.value(r))) {
        first[handle[v]] = v;
      }
    }
    int[] definer = new int[n];
    Arrays.fill(definer, -1);
    for (int v = 0; v < n; v++) {
      rep[v] = first[handle[v]];
      if (definer[rep[v]] < 0 && !passesOn(p, v, handle)) {
        definer[rep[v]] = v;
      }
    }
    for (int v = 0; v < n; v++) {
      if (rep[v] == v && definer[v] < 0) {
        definer[v] = v;
      }
    }
    return new Copies(rep, definer);
  }

  /** Whether a value is one of the values it reads, passed on unchanged. */
  private static boolean passesOn(CoreProgram p, int v, int[] handle) {
    for (int d : p.deps(v)) {
      if (handle[d] == handle[v]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Which copy represents the others: an input (a value that passes an input on unchanged is that
   * input), else an output (which output relations may use), else the first.
   */
  private static int preference(CoreValue v) {
    return v.kind() == ValueKind.INPUT ? 2 : v.output() ? 1 : 0;
  }

  /** A builder that gives equal nodes one handle and infers nothing. */
  private static final class HashConsing implements TermBuilder {
    private final Map<NodeKey, Integer> handles = new HashMap<>();

    int size() {
      return handles.size();
    }

    int leaf(int valueId) {
      return add(-1, new long[] {valueId});
    }

    @Override
    public int add(int op, long[] attrs, int... children) {
      NodeKey key = new NodeKey(op, attrs, children.clone());
      Integer h = handles.get(key);
      if (h == null) {
        h = handles.size();
        handles.put(key, h);
      }
      return h;
    }

    @Override
    public TypeInfo type(int handle) {
      throw new UnsupportedOperationException("hash-consing infers no types");
    }
  }
}
