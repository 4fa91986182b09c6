package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreRelation;
import dev.entangle.egraph.RunReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntFunction;

/**
 * Checks operators ahead of their turn on other threads ({@code --jobs}), with the outcome of every
 * check the one a sequential walk would get. An operator whose inputs R already relates is checked
 * on a worker against the state as it stands, reading it through {@link StateReads.Recording}; when
 * the walk reaches it, the outcome is taken only if every read still answers the same (the checks
 * in between related nothing it looked at and learned no equality it looked up), and otherwise the
 * operator is checked again then. What a check reports (saturations, lemma counts, learned
 * equalities) is passed on when its outcome is taken, in G_s order, so output is the same for any
 * number of jobs.
 */
final class Speculation implements AutoCloseable {
  /** What one operator's check is asked: its outputs, their expectations, whether required. */
  record Task(List<Integer> outputs, List<CoreRelation.Expect> expects, boolean required) {}

  /**
   * An outcome, how long its check took, and the check itself (a deferred chain may go on in its
   * e-graph: {@link OperatorCheck#continueWith}).
   */
  record Taken(OperatorCheck.Outcome outcome, double millis, OperatorCheck check) {}

  /** How far past the walk's position operators are considered for checking ahead. */
  static final int WINDOW = 64;

  /** Fewer G_s operators than this are checked on one thread: a pool costs more than it saves. */
  static final int MIN_OPERATORS = 64;

  /** Checks recurse deeply: each worker gets the stack the launcher gives the main thread. */
  private static final long STACK_BYTES = 16L << 20;

  private record Ahead(
      OperatorCheck check,
      OperatorCheck.Outcome outcome,
      StateReads.Recording reads,
      List<Saturation> saturations,
      int[] fired,
      double millis) {}

  private record Saturation(CoreOp op, RunReport report, int nodes, int classes, int explored) {}

  private final Context ctx;
  private final List<CoreOp> ops;
  private final IntFunction<Task> tasks;
  private final ExecutorService pool;
  private final int workers;
  private final Map<Integer, Future<Ahead>> ahead = new HashMap<>();

  /**
   * @param jobs how many checks may run at once, the walk's own included (1: none ahead)
   * @param tasks the task of the operator at each walk index
   */
  Speculation(Context ctx, List<CoreOp> ops, IntFunction<Task> tasks, int jobs) {
    this.ctx = ctx;
    this.ops = ops;
    this.tasks = tasks;
    this.workers = ops.size() < MIN_OPERATORS ? 0 : Math.max(0, jobs - 1);
    this.pool = workers > 0 ? Executors.newFixedThreadPool(workers, threads()) : null;
  }

  /**
   * The outcome of the operator at walk index {@code i}: taken from ahead, or checked now; on the
   * e-graph of {@code chain} when not null ({@link OperatorCheck#continueWith}), where a check
   * ahead, made on a fresh e-graph, is not taken (the outcome must not depend on the jobs).
   */
  Taken check(int i, OperatorCheck chain) {
    Future<Ahead> f = ahead.remove(i);
    if (f != null && chain == null) {
      Ahead a = done(f);
      if (a != null && a.reads().stillTrue()) {
        for (Saturation s : a.saturations()) {
          ctx.listener.saturated(s.op(), s.report(), s.nodes(), s.classes(), s.explored());
        }
        for (int k = 0; k < ctx.fired.length; k++) {
          ctx.fired[k] += a.fired()[k];
        }
        return new Taken(a.outcome(), a.millis(), a.check());
      }
    }
    long start = System.nanoTime();
    OperatorCheck check =
        chain != null ? chain.continueWith(ops.get(i)) : new OperatorCheck(ctx, ops.get(i));
    OperatorCheck.Outcome out = run(i, check);
    return new Taken(out, (System.nanoTime() - start) / 1e6, check);
  }

  /** Runs a check of the operator at walk index {@code i} on its task. */
  private OperatorCheck.Outcome run(int i, OperatorCheck check) {
    Task t = tasks.apply(i);
    return check.run(t.outputs(), t.expects(), t.required());
  }

  /**
   * Starts checks ahead of walk index {@code i} (the next the walk takes): operators within {@link
   * #WINDOW} whose inputs R relates now, the nearest first, while a worker is free.
   */
  void ahead(int i) {
    if (pool == null) {
      return;
    }
    ahead.keySet().removeIf(k -> k < i);
    int running = 0;
    for (Future<Ahead> f : ahead.values()) {
      running += f.isDone() ? 0 : 1;
    }
    for (int j = i + 1; j < Math.min(ops.size(), i + 1 + WINDOW) && running < workers; j++) {
      if (!ahead.containsKey(j) && ready(ops.get(j))) {
        int index = j;
        ahead.put(j, pool.submit(() -> checkAhead(index)));
        running++;
      }
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  private Ahead checkAhead(int i) {
    long start = System.nanoTime();
    StateReads.Recording reads = StateReads.recording(ctx);
    List<Saturation> saturations = new ArrayList<>();
    CheckListener buffer =
        new CheckListener() {
          @Override
          public void saturated(CoreOp op, RunReport report, int nodes, int classes, int n) {
            saturations.add(new Saturation(op, report, nodes, classes, n));
          }
        };
    int[] fired = new int[ctx.fired.length];
    OperatorCheck check = new OperatorCheck(ctx, ops.get(i), reads, buffer, fired);
    OperatorCheck.Outcome out = run(i, check);
    return new Ahead(check, out, reads, saturations, fired, (System.nanoTime() - start) / 1e6);
  }

  /**
   * Whether R relates every value the operator reads (else its check would wait on one), and none
   * is deferred (the walk checks a deferred chain's next operation in the chain's e-graph).
   */
  private boolean ready(CoreOp op) {
    for (int v : op.reads()) {
      if (ctx.deferred.contains(v)
          || !ctx.relation.containsKey(v) && !ctx.gs.program.value(v).kind().inlined()) {
        return false;
      }
    }
    return true;
  }

  /** The check's result, or null when it failed (the walk then checks the operator itself). */
  private static Ahead done(Future<Ahead> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | RuntimeException e) {
      return null;
    }
  }

  private static ThreadFactory threads() {
    return r -> {
      Thread t = new Thread(null, r, "entangle-check-ahead", STACK_BYTES);
      t.setDaemon(true);
      return t;
    };
  }
}
