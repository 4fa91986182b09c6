package dev.entangle.cli;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Work started on a thread of its own while the caller goes on with other work; {@link #join} gives
 * its result, or throws what it threw, as if it had been done at the place of the join. The thread
 * is a daemon: work nobody joins (the caller failed first) does not keep the process alive.
 *
 * @param <T> the result
 */
final class Background<T> {
  private final FutureTask<T> task;

  private Background(FutureTask<T> task) {
    this.task = task;
  }

  /** Starts {@code work} now on a new daemon thread called {@code name}. */
  static <T> Background<T> start(String name, Supplier<T> work) {
    FutureTask<T> task = new FutureTask<>(work::get);
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
    return new Background<>(task);
  }

  /**
   * Waits for the work and returns its result; a runtime exception or error it threw is thrown here
   * unchanged.
   */
  T join() {
    try {
      return await(task, Long.MAX_VALUE);
    } catch (TimeoutException e) {
      throw new IllegalStateException("a wait without a limit timed out", e);
    }
  }

  /**
   * A task's result, waiting until {@code deadline} (a {@link System#nanoTime}; {@link
   * Long#MAX_VALUE} for no limit) at most; a runtime exception or error the task threw is thrown
   * here unchanged, and an interrupt while waiting is kept for the caller.
   */
  static <T> T await(FutureTask<T> task, long deadline) throws TimeoutException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          if (deadline == Long.MAX_VALUE) {
            return task.get();
          }
          return task.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
