package dev.entangle.eval;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Replays every operation of a core program into one {@link TermBuilder}, each once its operands
 * are there: inputs first, then operations in program order, an operation that reads a value not
 * yet computed (a collective waiting for a later rank) coming back once it is. A collective group's
 * facts are left out (they only state equalities). It knows nothing of values: what a handle holds
 * is the builder's business.
 */
public final class ProgramWalker {
  /** What the walk asks of its user. */
  public interface Handler {
    /** The handle of a value given from outside (an input, or a cut point), or -1. */
    int given(CoreValue v);

    /** A handle standing for a value that has none, and why. */
    int unavailable(CoreValue v, String reason);

    /**
     * Handles (one per result item) standing for an operation that could not be replayed, and why.
     */
    int[] failed(CoreOp op, String reason);

    /** Called before an operation is replayed. */
    void before(CoreOp op);

    /** Called after an operation is replayed, with its result handles. */
    void after(CoreOp op, int[] handles);

    /** Called once for every value, with its handle however it was made. */
    void done(CoreValue v, int handle);
  }

  private ProgramWalker() {}

  public static void walk(CoreProgram p, TermBuilder b, Handler handler) {
    int[] handles = new int[p.size()];
    Arrays.fill(handles, Integer.MIN_VALUE);
    for (CoreValue v : p.values()) {
      if (v.op() < 0) {
        int h = handler.given(v);
        handles[v.id()] =
            h >= 0 ? h : handler.unavailable(v, "no value was given for the input " + v.label());
        handler.done(v, handles[v.id()]);
      }
    }
    List<CoreOp> pending = new ArrayList<>(p.ops());
    boolean progress = true;
    while (progress && !pending.isEmpty()) {
      progress = false;
      List<CoreOp> later = new ArrayList<>();
      for (CoreOp op : pending) {
        if (!ready(op, handles)) {
          later.add(op);
          continue;
        }
        progress = true;
        int[] out = op.values().length == 0 ? new int[0] : replay(p, op, b, handler, handles);
        for (int v : op.values()) {
          CoreValue value = p.value(v);
          int g = handler.given(value);
          handles[v] = g >= 0 ? g : out[value.item()];
          handler.done(value, handles[v]);
        }
      }
      pending = later;
    }
    for (CoreOp op : pending) {
      String reason =
          "it waits for a value that is never computed (do the ranks issue their collectives in"
              + " different orders?)";
      int[] out = handler.failed(op, reason);
      for (int v : op.values()) {
        CoreValue value = p.value(v);
        handles[v] = out[value.item()];
        handler.done(value, handles[v]);
      }
    }
  }

  private static boolean ready(CoreOp op, int[] handles) {
    for (int r : op.reads()) {
      if (handles[r] == Integer.MIN_VALUE) {
        return false;
      }
    }
    return true;
  }

  private static int[] replay(
      CoreProgram p, CoreOp op, TermBuilder b, Handler handler, int[] handles) {
    handler.before(op);
    int[] out;
    try {
      out = p.replay(op, v -> handles[v], b, false);
    } catch (LoweringException | ShapeException | EvalException | IllegalArgumentException e) {
      out = handler.failed(op, e.getMessage());
    }
    handler.after(op, out);
    return out;
  }
}
