package dev.entangle.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JsonTree} reads and writes what an {@code ObjectMapper} reads and writes. */
class JsonTreeTest {
  private static final ObjectMapper MAPPER = JsonFiles.mapper();

  /** Every kind of value: integers of each width, floats, escapes, nesting, empty containers. */
  static final String MIXED =
      """
      {"format": "entangle-fx/1", "int": 7, "neg": -3, "long": 12345678901234,
       "big": 123456789012345678901234567890, "float": 1.5, "exp": -2.5e-300, "zero": -0.0,
       "text": "a \\"quoted\\" line\\nand tab\\t, unicode \\u00e9 \\u2028", "yes": true,
       "no": false, "nothing": null, "empty": {}, "none": [],
       "nested": [[1, [2, {"k": [3.25, "x"]}]], {"a": {"b": {"c": null}}}]}
      """;

  private static JsonNode read(String text) throws IOException {
    try (JsonParser p =
        JsonTree.parser(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))) {
      return JsonTree.readValue(p);
    }
  }

  @Test
  void readsTheTreeTheMapperReads() throws IOException {
    JsonNode ours = read(MIXED);
    JsonNode theirs = MAPPER.readTree(MIXED);
    assertEquals(theirs, ours);
    assertEquals(theirs.get("long").getClass(), ours.get("long").getClass());
    assertEquals(theirs.get("big").getClass(), ours.get("big").getClass());
    assertEquals(theirs.get("int").getClass(), ours.get("int").getClass());
    assertEquals(theirs.get("exp").getClass(), ours.get("exp").getClass());
    List<String> keys = new ArrayList<>();
    ours.fieldNames().forEachRemaining(keys::add);
    assertEquals(
        "format int neg long big float exp zero text yes no nothing empty none nested",
        String.join(" ", keys));
  }

  @Test
  void writesTheTextTheMapperWrites() throws IOException {
    JsonNode tree = MAPPER.readTree(MIXED);
    assertEquals(
        MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(tree), JsonTree.pretty(tree));
    assertEquals(MAPPER.writeValueAsString(tree), JsonTree.compact(tree));
  }

  @Test
  void writesScalarsAndNumbersMadeInCode() {
    var json = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    var o = json.objectNode();
    o.put("f", 0.1f).put("d", 1e-7).put("s", (short) 3).put("l", Long.MIN_VALUE);
    o.put("dec", new java.math.BigDecimal("1.2300"));
    assertEquals(
        "{\"f\":0.1,\"d\":1.0E-7,\"s\":3,\"l\":-9223372036854775808,\"dec\":1.2300}",
        JsonTree.compact(o));
    assertEquals("\"x\"", JsonTree.compact(json.textNode("x")));
  }

  @Test
  void rejectsRepeatedKeysWhereTheyAreAndEndsAtTheEndOfInput() throws IOException {
    JsonParseException e =
        assertThrows(JsonParseException.class, () -> read("{\"a\": 1,\n \"a\": 2}"));
    assertTrue(e.getOriginalMessage().contains("Duplicate field 'a'"), e.getMessage());
    assertEquals(2, e.getLocation().getLineNr());
    assertNull(read("   "));
  }

  @Test
  void readsFilesAsBefore(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
    Path f = Files.writeString(dir.resolve("g.json"), MIXED);
    assertEquals(MAPPER.readTree(MIXED), JsonFiles.read(f, "graph file"));
  }
}
