package dev.entangle.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InterruptionTest {
  @AfterEach
  void clearFlag() {
    Thread.interrupted();
  }

  @Test
  void aThreadNobodyInterruptedGoesOn() throws IOException {
    assertDoesNotThrow(Interruption::check);
    InputStream in = Interruption.watching(new ByteArrayInputStream(new byte[] {1, 2, 3}));
    assertArrayEquals(new byte[] {1, 2, 3}, in.readAllBytes());
  }

  @Test
  void anInterruptedThreadStopsAtItsNextCheckAndKeepsTheFlag() {
    Thread.currentThread().interrupt();
    assertThrows(Interruption.Stopped.class, Interruption::check);
    assertTrue(Thread.currentThread().isInterrupted(), "the flag stays set for the rest to see");
  }

  @Test
  void aWatchedStreamStopsAtItsNextReadOnceInterrupted() throws IOException {
    InputStream in = Interruption.watching(new ByteArrayInputStream(new byte[64]));
    byte[] buffer = new byte[8];
    assertTrue(in.read(buffer, 0, 8) == 8);
    Thread.currentThread().interrupt();
    assertThrows(Interruption.Stopped.class, () -> in.read(buffer, 0, 8));
    assertThrows(Interruption.Stopped.class, in::read);
  }
}
