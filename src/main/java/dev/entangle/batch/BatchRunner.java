package dev.entangle.batch;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckOutcome;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.check.Programs;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.numbers.UserLemmas;
import dev.entangle.refine.CheckListener;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Evidence;
import dev.entangle.refine.Numbers;
import dev.entangle.refine.Verdict;
import dev.entangle.relation.RelationReader;
import dev.entangle.rules.Lemmas;
import dev.entangle.util.InputException;
import dev.entangle.util.Names;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs a manifest's cases in one JVM, up to {@code jobs} at once, with one lemma library for all. A
 * case that cannot run (a missing or bad file, an internal error) is reported as such and does not
 * stop the others. Results come back, and are handed to the listener, in manifest order.
 */
public final class BatchRunner {
  /** Checks recurse deeply: each worker gets the stack the launcher gives the main thread. */
  private static final long STACK_BYTES = 16L << 20;

  private BatchRunner() {}

  /**
   * Runs every case.
   *
   * @param jobs most cases checked at once (at least 1)
   * @param settings the settings of every case (a case's own {@code timeout} replaces the limit)
   * @param done told of each case's run as soon as it and every case before it are done
   * @param debug whether an internal error's stack trace is printed (to standard error)
   */
  public static List<CaseRun> run(
      Manifest manifest,
      Lemmas lemmas,
      UserLemmas user,
      CheckSettings settings,
      int jobs,
      Consumer<CaseRun> done,
      boolean debug) {
    int threads = Math.max(1, Math.min(jobs, manifest.cases().size()));
    ExecutorService pool = Executors.newFixedThreadPool(threads, workers());
    try {
      List<Future<CaseRun>> futures = new ArrayList<>();
      for (BatchCase c : manifest.cases()) {
        futures.add(pool.submit(() -> bounded(c, lemmas, user, settings, debug)));
      }
      List<CaseRun> runs = new ArrayList<>();
      for (Future<CaseRun> f : futures) {
        CaseRun r = get(f);
        runs.add(r);
        done.accept(r);
      }
      return runs;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Runs one case on a thread of its own under the case's time limit (its {@code timeout}, else the
   * run's), reading, importing and lowering included. The check itself stops at the limit and
   * reports {@code inconclusive}; a case still reading, importing or lowering a short while after
   * the limit is reported {@code inconclusive}, naming that phase, and the batch goes on without it
   * (its thread is told to stop and is left to end; it holds no lock the others need).
   */
  static CaseRun bounded(
      BatchCase c, Lemmas lemmas, UserLemmas user, CheckSettings settings, boolean debug) {
    long start = System.nanoTime();
    AtomicReference<String> phase = new AtomicReference<>("reading the inputs");
    FutureTask<CaseRun> task =
        new FutureTask<>(() -> runCase(c, lemmas, user, settings, debug, phase, start));
    Thread thread = new Thread(null, task, "entangle-case-" + c.name(), STACK_BYTES);
    thread.setDaemon(true);
    thread.start();
    double limit = limitSeconds(c, settings);
    long deadline = plus(start, Math.round(limit * 1e9) + GRACE_NANOS);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return task.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw new IllegalStateException("a batch case failed", e.getCause());
        } catch (TimeoutException e) {
          thread.interrupt();
          String in = phase.get();
          return new CaseRun(
              c,
              null,
              "the case ran out of time (its limit of "
                  + limitText(limit)
                  + " s) while "
                  + in
                  + ", and was stopped there; nothing after it was checked. Give the case a"
                  + " larger \"timeout\" in the manifest, or the batch a larger --timeout.",
              seconds(start),
              in);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The time after the limit a case's check gets to stop by itself and report. */
  private static final long GRACE_NANOS = 500_000_000L;

  private static double limitSeconds(BatchCase c, CheckSettings settings) {
    return c.timeoutSeconds() != null
        ? c.timeoutSeconds()
        : settings.options().timeout().toMillis() / 1000.0;
  }

  private static String limitText(double seconds) {
    return seconds == Math.rint(seconds) && seconds < 1e15
        ? String.valueOf((long) seconds)
        : String.valueOf(seconds);
  }

  /** {@code a + b}, or Long.MAX_VALUE where it would overflow. */
  private static long plus(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  /** Runs one case: imports or reads its sides, reads its relation, checks. */
  static CaseRun runCase(
      BatchCase c,
      Lemmas lemmas,
      UserLemmas user,
      CheckSettings settings,
      boolean debug,
      AtomicReference<String> phase,
      long start) {
    try {
      requireFiles(c);
      phase.set(c.gs() instanceof GraphSource.Imported ? "importing G_s" : "reading G_s");
      Graph gs = c.gs().graph();
      phase.set(c.gd() instanceof GraphSource.Imported ? "importing G_d" : "reading G_d");
      DistributedGraph gd = c.gd().distributed();
      phase.set("reading the relation");
      CheckInputs in = new CheckInputs(gs, gd, RelationReader.read(c.relation(), gd.worldSize()));
      CheckSettings s = settings;
      if (c.timeoutSeconds() != null) {
        s =
            new CheckSettings(
                settings
                    .options()
                    .withTimeout(Duration.ofMillis((long) (c.timeoutSeconds() * 1000))),
                settings.numbers(),
                settings.seed(),
                settings.draws(),
                settings.numericBudget());
      }
      phase.set("lowering the graphs");
      Programs p = CheckPipeline.lower(in);
      phase.set("checking");
      CheckOutcome outcome;
      try {
        outcome =
            new CheckOutcome(CheckPipeline.check(in, p, lemmas, s, CheckListener.NONE, start), p);
      } catch (AnalysisConflict e) {
        InputException blamed = user.blame(e);
        throw blamed != null ? blamed : e;
      }
      String unrelated = RelationGaps.unrelatedInput(outcome.result(), p.gs(), c.relation());
      if (unrelated != null) {
        return new CaseRun(c, null, Names.forMessage(unrelated), seconds(start));
      }
      phase.set("certifying on numbers");
      String violated = certify(outcome, in, s, user);
      if (violated != null) {
        return new CaseRun(c, null, violated, seconds(start));
      }
      return new CaseRun(c, outcome, null, seconds(start));
    } catch (InputException e) {
      return new CaseRun(c, null, Names.forMessage(e.getMessage()), seconds(start));
    } catch (StackOverflowError e) {
      return new CaseRun(
          c,
          null,
          "an input of the case is nested too deeply to process (deeper than the stack allows);"
              + " flatten it, or give more stack with JAVA_OPTS=-Xss64m.",
          seconds(start));
    } catch (OutOfMemoryError e) {
      return new CaseRun(
          c,
          null,
          "out of memory: the case's inputs are too large for the Java heap; give more heap"
              + " with JAVA_OPTS=-Xmx8g (for example), or check the case alone.",
          seconds(start));
    } catch (RuntimeException e) {
      if (debug) {
        synchronized (System.err) {
          System.err.println("entangle: case " + c.name() + ":");
          e.printStackTrace();
        }
      }
      return new CaseRun(
          c,
          null,
          "internal error: "
              + e
              + ". This is a bug in entangle; please report it with the case's files.",
          seconds(start));
    }
  }

  /** Fails naming the first file of the case that does not exist. */
  private static void requireFiles(BatchCase c) {
    List<Path> files = new ArrayList<>(c.gs().files());
    files.addAll(c.gd().files());
    files.add(c.relation());
    for (Path f : files) {
      if (!Files.exists(f)) {
        throw new InputException(
            "the file "
                + Names.shorten(f.toString())
                + " does not exist (paths in a manifest are relative to its folder).");
      }
    }
  }

  /**
   * For a {@code refines} whose proof used a user lemma the numbers could not exercise at load
   * time: the output relation checked on numbers. Null when it holds (or was not needed), else why
   * the case is refused.
   */
  private static String certify(
      CheckOutcome outcome, CheckInputs in, CheckSettings s, UserLemmas user) {
    CheckResult r = outcome.result();
    var fired = r.stats().lemmaApplications();
    if (r.verdict() != Verdict.REFINES || !user.usedUntested(fired)) {
      return null;
    }
    Numbers numbers = CheckPipeline.oracle(in, outcome.programs(), s);
    for (CheckResult.OutputEntry e : r.outputRelation()) {
      if (numbers.compare(e.gs(), e.gd()) instanceof Evidence.Witness w) {
        return "certificate violated: the proof used your lemma"
            + (user.used(fired).size() == 1 ? " " : "s ")
            + String.join(", ", user.used(fired).stream().map(UserLemmas.Lemma::toString).toList())
            + ", untested on numbers, and the output relation entry for "
            + outcome.programs().gs().value(e.gs()).name()
            + " is false on random inputs (seed "
            + w.seed()
            + "): fix or remove the lemma.";
      }
    }
    return null;
  }

  private static CaseRun get(Future<CaseRun> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a case", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a batch worker failed", e.getCause());
    }
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }

  private static ThreadFactory workers() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(null, r, "entangle-batch-" + n.incrementAndGet(), STACK_BYTES);
      t.setDaemon(true);
      return t;
    };
  }
}
