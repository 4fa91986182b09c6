package dev.entangle.graph;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.entangle.util.InputException;
import dev.entangle.util.InputFiles;
import dev.entangle.util.Interruption;
import dev.entangle.util.IoReasons;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a JSON file into a Jackson tree, turning every failure into a one-paragraph {@link
 * InputException} that names the file (and the line and column of a syntax error). Shared by the
 * graph and relation readers. Reading goes through {@link JsonTree}, without an {@code
 * ObjectMapper}; the mapper is made on first use, for the commands that bind JSON to values.
 */
public final class JsonFiles {
  private JsonFiles() {}

  /** The mapper for the project's JSON files (repeated keys rejected), made on first use. */
  public static ObjectMapper mapper() {
    return Mapper.INSTANCE;
  }

  /** Holds the mapper, so that only its first use pays for its set-up. */
  private static final class Mapper {
    static final ObjectMapper INSTANCE =
        JsonMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();
  }

  /**
   * Parses {@code file}.
   *
   * @param what what the file should be, for messages, e.g. {@code "graph file"}
   */
  public static JsonNode read(Path file, String what) {
    InputFiles.requireReadable(file, what);
    JsonNode root;
    try (InputStream in = Files.newInputStream(file);
        JsonParser parser = JsonTree.parser(Interruption.watching(in))) {
      root = JsonTree.readValue(parser);
      if (root != null && parser.nextToken() != null) {
        JsonLocation loc = parser.currentTokenLocation();
        throw new InputException(
            file
                + ": line "
                + loc.getLineNr()
                + ", column "
                + loc.getColumnNr()
                + ": malformed JSON: more text after the end of the top-level"
                + " value; a "
                + what
                + " holds exactly one JSON object.");
      }
    } catch (NoSuchFileException e) {
      throw new InputException(file + ": no such file; check the path of the " + what + ".");
    } catch (JsonProcessingException e) {
      throw new InputException(syntaxMessage(file, e), e);
    } catch (IOException e) {
      throw new InputException(
          file
              + ": cannot read the "
              + what
              + " ("
              + reason(e)
              + "); check that it is a readable"
              + " file.",
          e);
    }
    if (root == null) {
      throw new InputException(
          file
              + ": the file is empty; a "
              + what
              + " is a JSON object (see 'What goes in' in the README).");
    }
    return root;
  }

  /** Reads a JSON object from a parser at its {@code START_OBJECT}. */
  @FunctionalInterface
  interface ObjectReader<T> {
    T read(JsonParser p) throws IOException;
  }

  /**
   * Reads {@code file}, a JSON object and nothing after it, with {@code reader} from the parser at
   * its {@code START_OBJECT}, without a tree of the whole file. Any problem is an {@link
   * InputException}, whose message may be less precise than {@link #read}'s: a caller that must
   * name the problem reads the file with {@link #read} again.
   */
  static <T> T stream(Path file, String what, ObjectReader<T> reader) {
    InputFiles.requireReadable(file, what);
    try (InputStream in = Files.newInputStream(file);
        JsonParser parser = JsonTree.parser(Interruption.watching(in))) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new InputException(file + ": a " + what + " is a JSON object.");
      }
      T value = reader.read(parser);
      if (parser.nextToken() != null) {
        throw new InputException(file + ": more text after the end of the top-level value.");
      }
      return value;
    } catch (IOException e) {
      throw new InputException(file + ": cannot read the " + what + " (" + reason(e) + ").", e);
    }
  }

  /** A short human reason for an I/O failure, without exception class names. */
  public static String reason(IOException e) {
    return IoReasons.of(e);
  }

  private static String syntaxMessage(Path file, JsonProcessingException e) {
    if (e instanceof StreamConstraintsException) {
      return file
          + ": the JSON exceeds a limit of the reader ("
          + e.getOriginalMessage().replaceAll(",\\s*from `[^`]*`", "")
          + "); a graph, relation or manifest never needs that, so the file is damaged or not"
          + " one of entangle's.";
    }
    JsonLocation loc = e.getLocation();
    String at =
        loc == null ? "" : " line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ":";
    String why =
        e.getOriginalMessage()
            .replaceAll("\\[Source: [^\\]]*?; line:", "[line:")
            .replaceAll("\\s*\\(bound as [^)]*\\)", "")
            .replaceAll("`?com\\.fasterxml[\\w.$]*`?", "the reader")
            .replaceAll(",\\s*from `[^`]*`", "")
            .replaceAll("\\s*\\(set with [^)]*\\)", "")
            .replaceAll("\\s+", " ")
            .trim();
    return file + ":" + at + " malformed JSON: " + why + "; fix the JSON syntax at that spot.";
  }
}
