package dev.entangle.util;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Cooperative stopping of reading, importing and lowering on a thread that was interrupted: a batch
 * case past its time limit is given up on and its thread interrupted, and the long loops over an
 * input (its bytes, nodes, statements, instructions) ask {@link #check} and end with {@link
 * Stopped}, so the abandoned case frees its memory instead of reading on.
 */
public final class Interruption {
  private Interruption() {}

  /** The run was stopped from outside; nobody waits for its result. */
  public static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super("stopped: the thread was interrupted", null, false, false);
    }
  }

  /** Throws {@link Stopped} when the current thread was interrupted (the flag stays set). */
  public static void check() {
    if (Thread.currentThread().isInterrupted()) {
      throw new Stopped();
    }
  }

  /** {@code in}, asking {@link #check} before each read. */
  public static InputStream watching(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        check();
        return super.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        check();
        return super.read(b, off, len);
      }
    };
  }
}
