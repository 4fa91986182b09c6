package dev.entangle.importer.pt2;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.JsonFiles;
import dev.entangle.util.InputException;
import dev.entangle.util.InputFiles;
import dev.entangle.util.IoReasons;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * The parts of a {@code .pt2} archive that entangle reads: the serialized program of {@code
 * ROOT/models/model.json} (the archive's only model when it is named otherwise), checked to be
 * torch.export's {@code pt2} archive format at a schema version entangle reads.
 *
 * @param file the archive as given
 * @param entry the model's entry in the zip, for messages
 * @param program the serialized {@code ExportedProgram} (its {@code graph_module}, {@code
 *     schema_version}, ...)
 */
record Pt2Archive(Path file, String entry, JsonNode program) {
  /** The export schema's major version read ({@code torch/_export/serde/schema.py}). */
  static final int SCHEMA_MAJOR = 8;

  private static final String FORMAT = "pt2";
  private static final String OLD_PROGRAM = "serialized_exported_program.json";

  /** Reads the archive {@code file}; every failure is an input error naming it. */
  static Pt2Archive open(Path file) {
    Pt2Errors errors = new Pt2Errors(file.toString(), null);
    InputFiles.requireReadable(file, ".pt2 archive");
    if (!Files.exists(file)) {
      throw new InputException(file + ": no such file; check the path of the .pt2 archive.");
    }
    try (ZipFile zip = new ZipFile(file.toFile(), StandardCharsets.UTF_8)) {
      List<String> names = Collections.list(zip.entries()).stream().map(ZipEntry::getName).toList();
      String root = root(names, errors);
      String format = text(zip, root + "archive_format", errors).strip();
      if (!format.equals(FORMAT)) {
        throw errors.unsupported(
            "its archive_format is '" + format + "', not torch.export's '" + FORMAT + "'",
            "This is not a program saved with torch.export.save; " + Pt2Errors.RESAVE);
      }
      String entry = model(names, root, errors);
      JsonNode program = json(zip, entry, errors.at(entry));
      checkSchema(program, errors.at(entry));
      return new Pt2Archive(file, entry, program);
    } catch (ZipException e) {
      throw new InputException(
          file
              + ": is not a zip archive ("
              + e.getMessage()
              + "), so not a .pt2 archive torch.export.save writes. "
              + Pt2Errors.RESAVE);
    } catch (IOException e) {
      throw new InputException(
          file + ": cannot read the .pt2 archive (" + IoReasons.of(e) + ").", e);
    }
  }

  /** The folder every part lies in ({@code NAME/}), told by its {@code archive_format}. */
  private static String root(List<String> names, Pt2Errors errors) {
    List<String> roots = new ArrayList<>();
    for (String n : names) {
      if (n.equals("archive_format")) {
        roots.add("");
      } else if (n.endsWith("/archive_format") && n.indexOf('/') == n.length() - 15) {
        roots.add(n.substring(0, n.length() - 14));
      }
    }
    if (roots.size() == 1) {
      return roots.get(0);
    }
    if (names.stream().anyMatch(n -> n.endsWith(OLD_PROGRAM))) {
      throw errors.unsupported(
          "an archive of an older torch.export ("
              + OLD_PROGRAM
              + "), whose layout entangle does not read",
          "Load it with torch.export.load and save it again with a current torch.");
    }
    if (roots.isEmpty()) {
      throw errors.damaged("a zip archive without archive_format");
    }
    throw errors.damaged("a zip archive with " + roots.size() + " archive_format files");
  }

  private static String model(List<String> names, String root, Pt2Errors errors) {
    String models = root + "models/";
    List<String> found =
        names.stream()
            .filter(n -> n.startsWith(models) && n.endsWith(".json"))
            .filter(n -> n.indexOf('/', models.length()) < 0)
            .sorted()
            .toList();
    if (found.contains(models + "model.json")) {
      return models + "model.json";
    }
    if (found.size() == 1) {
      return found.get(0);
    }
    if (found.isEmpty()) {
      throw errors.damaged("no serialized program (" + models + "model.json)");
    }
    throw errors.unsupported(
        "several programs (" + String.join(", ", found) + ") and none named model.json",
        "Save the one program to check in an archive of its own with torch.export.save.");
  }

  private static String text(ZipFile zip, String entry, Pt2Errors errors) throws IOException {
    return new String(bytes(zip, entry, errors), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(ZipFile zip, String entry, Pt2Errors errors) throws IOException {
    ZipEntry e = zip.getEntry(entry);
    if (e == null) {
      throw errors.damaged("no " + entry);
    }
    long max = InputFiles.maxBytes();
    if (e.getSize() > max) {
      throw errors.unsupported(
          entry + " is " + e.getSize() + " bytes, more than the " + max + " entangle reads",
          "Raise the limit with the Java system property entangle.max-input-bytes.");
    }
    try (InputStream in = zip.getInputStream(e)) {
      byte[] b = in.readNBytes((int) Math.min(max, Integer.MAX_VALUE - 8) + 1);
      if (b.length > max) {
        throw errors.unsupported(
            entry + " is more than the " + max + " bytes entangle reads",
            "Raise the limit with the Java system property entangle.max-input-bytes.");
      }
      return b;
    }
  }

  private static JsonNode json(ZipFile zip, String entry, Pt2Errors errors) throws IOException {
    byte[] b = bytes(zip, entry, errors);
    try {
      JsonNode n = JsonFiles.mapper().readTree(b);
      if (n == null || !n.isObject()) {
        throw errors.damaged("the serialized program is not a JSON object");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw errors.damaged("malformed JSON (" + e.getOriginalMessage() + ")");
    }
  }

  private static void checkSchema(JsonNode program, Pt2Errors errors) {
    JsonNode v = program.path("schema_version");
    JsonNode major = v.get("major");
    if (major == null || !major.canConvertToInt()) {
      throw errors.damaged("the serialized program has no schema_version");
    }
    if (major.intValue() != SCHEMA_MAJOR) {
      String torch = program.path("torch_version").asText("an unknown torch");
      throw errors.unsupported(
          "the program was written by "
              + torch
              + " in torch.export's schema "
              + major.intValue()
              + "."
              + v.path("minor").asText("?")
              + "; entangle reads schema "
              + SCHEMA_MAJOR
              + ".x (torch 2.15 writes 8.20)",
          major.intValue() < SCHEMA_MAJOR
              ? "Load it with torch.export.load and save it again with a newer torch."
              : "Import the printed graph code instead (GraphModule.print_readable()), or save"
                  + " it with a torch that writes schema "
                  + SCHEMA_MAJOR
                  + ".");
    }
  }
}
