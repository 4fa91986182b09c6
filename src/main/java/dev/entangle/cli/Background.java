package dev.entangle.cli;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
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
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return task.get();
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
