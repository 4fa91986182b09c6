package dev.entangle.importer.pt2;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Archives the importer cannot read: each error is one paragraph naming the archive (and the node),
 * what is wrong and what to do.
 */
class Pt2ErrorsTest {
  @TempDir Path dir;

  private static void assertMessage(Path file, String... parts) {
    String m = assertThrows(InputException.class, () -> Pt2Importer.importGraph(file)).getMessage();
    assertTrue(m.startsWith(file + ": "), m);
    assertFalse(m.contains("\n"), m);
    assertFalse(m.contains("Exception"), m);
    for (String p : parts) {
      assertTrue(m.contains(p), "expected '" + p + "' in: " + m);
    }
  }

  @Test
  void aFileThatIsNotAZipArchive() throws IOException {
    Path f = Files.writeString(dir.resolve("model.pt2"), "not a zip");
    assertMessage(f, "is not a zip archive", "torch.export.save");
  }

  @Test
  void anArchiveWithoutItsProgram() throws IOException {
    Path f =
        Pt2Fixtures.rewrite(
            Pt2Fixtures.archive("mlp.pt2"),
            dir.resolve("m.pt2"),
            n -> n.contains("/models/"),
            s -> s);
    assertMessage(f, "no serialized program (mlp/models/model.json)", "torch.export.save");
  }

  @Test
  void aZipArchiveThatTorchExportDidNotWrite() throws IOException {
    Path f =
        Pt2Fixtures.rewrite(
            Pt2Fixtures.archive("mlp.pt2"),
            dir.resolve("m.pt2"),
            n -> n.endsWith("archive_format"),
            s -> s);
    assertMessage(f, "a zip archive without archive_format", "damaged");
  }

  @Test
  void anArchiveOfAnOlderTorchExport() throws IOException {
    Path f = dir.resolve("old.pt2");
    try (OutputStream o = Files.newOutputStream(f);
        ZipOutputStream z = new ZipOutputStream(o)) {
      z.putNextEntry(new ZipEntry("serialized_exported_program.json"));
      z.write("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      z.closeEntry();
    }
    assertMessage(f, "older torch.export", "save it again");
  }

  @Test
  void anotherSchemaVersion() throws IOException {
    Path f = Pt2Fixtures.edited("mlp.pt2", dir, s -> s.replace("\"major\": 8", "\"major\": 9"));
    assertMessage(f, "mlp/models/model.json", "schema 9.", "entangle reads schema 8.x");
  }

  @Test
  void malformedJson() throws IOException {
    Path f = Pt2Fixtures.edited("mlp.pt2", dir, s -> s.substring(0, s.length() / 2));
    assertMessage(f, "malformed JSON", "damaged");
  }

  @Test
  void argumentsThatDoNotSayWhetherTheyArePositional() throws IOException {
    Path f = Pt2Fixtures.edited("mlp.pt2", dir, s -> s.replace("\"kind\": 1", "\"kind\": null"));
    assertMessage(f, "node permute: argument 'self'", "positional or keyword", "save it again");
  }

  @Test
  void aHigherOrderOperator() throws IOException {
    Path f =
        Pt2Fixtures.edited(
            "mlp.pt2",
            dir,
            s -> s.replace("torch.ops.aten.relu.default", "torch.ops.higher_order.cond"));
    assertMessage(f, "node relu", "torch.ops.higher_order.cond", "higher-order");
  }

  @Test
  void aReferenceToAValueDefinedNowhere() throws IOException {
    Path f =
        Pt2Fixtures.edited(
            "mlp.pt2",
            dir,
            s ->
                s.replace(
                    "{\"as_tensor\": {\"name\": \"permute_1\"}}, \"kind\"",
                    "{\"as_tensor\": {\"name\": \"nowhere\"}}, \"kind\""));
    assertMessage(f, "node mm, argument mat2", "'nowhere'", "neither an input nor");
  }

  @Test
  void aDtypeCodeEntangleDoesNotKnow() throws IOException {
    Path f =
        Pt2Fixtures.edited("mlp.pt2", dir, s -> s.replaceFirst("\"dtype\": 7", "\"dtype\": 99"));
    assertMessage(f, "dtype code 99");
  }
}
