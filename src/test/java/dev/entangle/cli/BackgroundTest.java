package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class BackgroundTest {
  @Test
  void runsTheWorkOnItsOwnThreadWhileTheCallerGoesOn() throws InterruptedException {
    CountDownLatch callerWentOn = new CountDownLatch(1);
    Background<String> work =
        Background.start(
            "test-work",
            () -> {
              try {
                callerWentOn.await();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return Thread.currentThread().getName();
            });
    callerWentOn.countDown();
    String thread = work.join();
    assertEquals("test-work", thread);
    assertNotEquals(Thread.currentThread().getName(), thread);
    assertEquals("test-work", work.join(), "a second join gives the same result");
  }

  @Test
  void throwsWhatTheWorkThrewUnchanged() {
    InputException thrown = new InputException("lemmas/x.lemmas:1:1: error: bad");
    Background<Object> work =
        Background.start(
            "test-failure",
            () -> {
              throw thrown;
            });
    assertSame(thrown, assertThrows(InputException.class, work::join));
    StackOverflowError error = new StackOverflowError();
    Background<Object> deep =
        Background.start(
            "test-error",
            () -> {
              throw error;
            });
    assertSame(error, assertThrows(StackOverflowError.class, deep::join));
  }

  @Test
  void keepsTheCallersInterruptAndStillJoins() {
    Background<Integer> work = Background.start("test-interrupt", () -> 42);
    Thread.currentThread().interrupt();
    try {
      assertEquals(42, work.join());
      assertTrue(Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted();
    }
  }
}
