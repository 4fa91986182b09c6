package dev.entangle.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Output files are replaced whole: a failing writer leaves the old content and no stray file. */
class AtomicFilesTest {
  @TempDir Path tmp;

  @Test
  void aFailedWriteLeavesTheOldFileAndNoTemporary() throws IOException {
    Path f = Files.writeString(tmp.resolve("out.json"), "old");
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                AtomicFiles.write(
                    f,
                    out -> {
                      out.write("half".getBytes());
                      throw new IOException("No space left on device");
                    }));
    assertTrue(e.getMessage().contains("out.json: No space left on device"), e.getMessage());
    assertEquals("old", Files.readString(f));
    try (var files = Files.list(tmp)) {
      assertEquals(List.of(f), files.toList());
    }
  }

  @Test
  void aReplacedFileKeepsItsPermissions() throws IOException {
    Path f = Files.writeString(tmp.resolve("out.txt"), "old");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-r--"));
    AtomicFiles.writeString(f, "new");
    assertEquals("new", Files.readString(f));
    assertEquals("rw-rw-r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
  }

  @Test
  void aSymbolicLinkIsWrittenThrough() throws IOException {
    Path real = Files.writeString(tmp.resolve("real.txt"), "old");
    Path link = Files.createSymbolicLink(tmp.resolve("link.txt"), real);
    AtomicFiles.writeString(link, "new");
    assertTrue(Files.isSymbolicLink(link));
    assertEquals("new", Files.readString(real));
  }

  @Test
  void aMissingFolderIsReportedWithItsReason() {
    InputException e =
        assertThrows(
            InputException.class,
            () -> AtomicFiles.writeString(tmp.resolve("no/such/out.txt"), "x"));
    assertTrue(e.getMessage().contains("no such file or folder"), e.getMessage());
  }
}
