package dev.entangle.graph;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Jackson trees read from and written to JSON text with the streaming API alone. A check reads and
 * writes its JSON through here rather than through an {@code ObjectMapper}, whose set-up (hundreds
 * of classes, date formats, locales) costs more at start-up than reading the largest graph. The
 * trees are the ones {@code ObjectMapper.readTree} builds (integers as the smallest of int, long
 * and big integer; other numbers as doubles; keys in file order), and the text is the one {@code
 * ObjectMapper}'s default pretty printer or compact writer produces.
 */
public final class JsonTree {
  /** Parsers reject an object with a repeated key. */
  static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private JsonTree() {}

  /** A parser over {@code in} (closed with the parser), rejecting repeated keys. */
  static JsonParser parser(InputStream in) throws IOException {
    return FACTORY.createParser(in);
  }

  /**
   * The next JSON value of {@code p} as a tree, or null when the input has no more tokens.
   *
   * @throws IOException on malformed JSON, from the parser (with its location)
   */
  static JsonNode readValue(JsonParser p) throws IOException {
    JsonToken t = p.nextToken();
    return t == null ? null : value(p, t);
  }

  /** The JSON value whose first token {@code t} the parser has just read, as a tree. */
  static JsonNode value(JsonParser p, JsonToken t) throws IOException {
    return value(p, t, null);
  }

  /**
   * The JSON value whose first token {@code t} the parser has just read, as a tree whose strings
   * are {@code pool}'s (null: no pool): a string met again is the instance met first, so that a
   * graph read value by value keeps one copy of the names and stack traces its ranks repeat.
   */
  static JsonNode value(JsonParser p, JsonToken t, Map<String, String> pool) throws IOException {
    return switch (t) {
      case START_OBJECT -> object(p, pool);
      case START_ARRAY -> array(p, pool);
      case VALUE_STRING -> NODES.textNode(pooled(p.getText(), pool));
      case VALUE_NUMBER_INT ->
          switch (p.getNumberType()) {
            case INT -> NODES.numberNode(p.getIntValue());
            case LONG -> NODES.numberNode(p.getLongValue());
            default -> NODES.numberNode(p.getBigIntegerValue());
          };
      case VALUE_NUMBER_FLOAT -> NODES.numberNode(p.getDoubleValue());
      case VALUE_TRUE -> NODES.booleanNode(true);
      case VALUE_FALSE -> NODES.booleanNode(false);
      case VALUE_NULL -> NODES.nullNode();
      default -> throw new IllegalStateException("unexpected JSON token " + t);
    };
  }

  private static String pooled(String s, Map<String, String> pool) {
    if (pool == null) {
      return s;
    }
    String first = pool.putIfAbsent(s, s);
    return first == null ? s : first;
  }

  private static ObjectNode object(JsonParser p, Map<String, String> pool) throws IOException {
    ObjectNode o = NODES.objectNode();
    for (String key = p.nextFieldName(); key != null; key = p.nextFieldName()) {
      o.set(key, value(p, p.nextToken(), pool));
    }
    return o;
  }

  private static ArrayNode array(JsonParser p, Map<String, String> pool) throws IOException {
    ArrayNode a = NODES.arrayNode();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      a.add(value(p, t, pool));
    }
    return a;
  }

  /** The tree as pretty-printed JSON text (two-space indents, no final newline). */
  public static String pretty(JsonNode node) {
    return text(node, true);
  }

  /** The tree as JSON text on one line, without spaces. */
  public static String compact(JsonNode node) {
    return text(node, false);
  }

  private static String text(JsonNode node, boolean pretty) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      if (pretty) {
        g.setPrettyPrinter(new DefaultPrettyPrinter());
      }
      write(node, g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void write(JsonNode n, JsonGenerator g) throws IOException {
    switch (n.getNodeType()) {
      case OBJECT -> {
        g.writeStartObject();
        for (var e : n.properties()) {
          g.writeFieldName(e.getKey());
          write(e.getValue(), g);
        }
        g.writeEndObject();
      }
      case ARRAY -> {
        g.writeStartArray();
        for (JsonNode item : n) {
          write(item, g);
        }
        g.writeEndArray();
      }
      case STRING -> g.writeString(n.textValue());
      case NUMBER -> number(n, g);
      case BOOLEAN -> g.writeBoolean(n.booleanValue());
      case NULL -> g.writeNull();
      default -> throw new IllegalArgumentException("no JSON text for a " + n.getNodeType());
    }
  }

  private static void number(JsonNode n, JsonGenerator g) throws IOException {
    switch (n.numberType()) {
      case INT -> g.writeNumber(n.intValue());
      case LONG -> g.writeNumber(n.longValue());
      case BIG_INTEGER -> g.writeNumber(n.bigIntegerValue());
      case FLOAT -> g.writeNumber(n.floatValue());
      case BIG_DECIMAL -> g.writeNumber(n.decimalValue());
      default -> g.writeNumber(n.doubleValue());
    }
  }
}
