package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.ValueKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * G_s as the checker walks it: the operations that the required outputs depend on (stopping at
 * values the relation gives, the cut points, and at constants and undefined values, which are
 * carried as terms), in topological order.
 */
final class GsWalk {
  final CoreProgram program;
  final List<CoreOp> operators = new ArrayList<>();

  /** The values some operation reads or the check requires: a tuple item outside it is dead. */
  private final BitSet used = new BitSet();

  GsWalk(CoreProgram program, Set<Integer> related, List<Integer> required) {
    this.program = program;
    for (CoreOp op : program.ops()) {
      for (int r : op.reads()) {
        used.set(r);
      }
    }
    required.forEach(used::set);
    BitSet seen = new BitSet();
    BitSet needed = new BitSet();
    Deque<Integer> work = new ArrayDeque<>(required);
    while (!work.isEmpty()) {
      int v = work.pop();
      if (seen.get(v)) {
        continue;
      }
      seen.set(v);
      CoreValue value = program.value(v);
      if (related.contains(v) || value.kind().inlined() || value.op() < 0) {
        continue;
      }
      CoreOp op = program.op(value.op());
      if (needed.get(op.id())
          || op.kind().inlined()
          || (op.values().length == 1 && related.contains(op.values()[0]))) {
        continue;
      }
      needed.set(op.id());
      for (int i = op.reads().length - 1; i >= 0; i--) {
        work.push(op.reads()[i]);
      }
    }
    for (CoreOp op : program.ops()) {
      if (needed.get(op.id())) {
        operators.add(op);
      }
    }
  }

  /**
   * The values an operation produces that its check must map: itself, or its {@code getitem} items
   * but those computed from constants alone (the total weight {@code nll_loss_forward} returns
   * beside the loss), which are carried as their terms wherever they are read, and those nothing
   * reads and the check does not require (a max pool's indices in inference).
   */
  List<Integer> outputs(CoreOp op) {
    List<Integer> out = new ArrayList<>();
    int[] values = op.values();
    for (int v : values) {
      boolean constant =
          program.value(v).kind() == ValueKind.CONSTANT && op.kind() != ValueKind.CONSTANT;
      boolean dead = values.length > 1 && !used.get(v) && !program.value(v).output();
      if (!constant && !dead) {
        out.add(v);
      }
    }
    return out;
  }

  boolean inlined(int v) {
    return program.value(v).kind().inlined();
  }
}
