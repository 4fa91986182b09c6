package dev.entangle.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Options and parameters built in code, for the commands whose model picocli should not build by
 * reflection over annotations: every run builds the top-level command and {@code check}, and
 * reading their annotations (a proxy class per annotation type) costs a small check a tenth of its
 * time. What they print and accept is what the annotations would give.
 */
final class CodedOptions {
  private CodedOptions() {}

  /** {@code -h/--help} and {@code -V/--version}, as picocli's standard help options read. */
  static void addHelp(CommandSpec spec) {
    spec.addOption(
        OptionSpec.builder("-h", "--help")
            .usageHelp(true)
            .description("Show this help message and exit.")
            .build());
    spec.addOption(
        OptionSpec.builder("-V", "--version")
            .versionHelp(true)
            .description("Print version information and exit.")
            .build());
  }

  /** The {@code index}-th positional parameter, of type {@code type}; it must be given. */
  static PositionalParamSpec positional(
      int index, Class<?> type, String label, String description) {
    return PositionalParamSpec.builder()
        .index(Integer.toString(index))
        .arity("1")
        .required(true)
        .type(type)
        .paramLabel(label)
        .description(description)
        .build();
  }

  /** An option without a value: {@code true} when given. */
  static OptionSpec flag(List<String> names, String description) {
    return OptionSpec.builder(names.toArray(String[]::new))
        .type(boolean.class)
        .initialValue(false)
        .description(description)
        .build();
  }

  /** An option with one value; {@code null} when not given. */
  static OptionSpec value(List<String> names, Class<?> type, String label, String description) {
    return builder(names, type, label, description).build();
  }

  /** An option with one value, {@code defaultValue} when not given. */
  static OptionSpec withDefault(
      String name, Class<?> type, String label, String defaultValue, String description) {
    return builder(List.of(name), type, label, description).defaultValue(defaultValue).build();
  }

  /** An option that must be given, once. */
  static OptionSpec required(String name, Class<?> type, String label, String description) {
    return builder(List.of(name), type, label, description).required(true).build();
  }

  /** An option that may be given any number of times; its values in order, empty when none. */
  static OptionSpec repeatable(String name, Class<?> type, String label, String description) {
    return OptionSpec.builder(name)
        .type(List.class)
        .auxiliaryTypes(type)
        .initialValue(new ArrayList<>())
        .paramLabel(label)
        .description(description)
        .build();
  }

  private static OptionSpec.Builder builder(
      List<String> names, Class<?> type, String label, String description) {
    return OptionSpec.builder(names.toArray(String[]::new))
        .type(type)
        .paramLabel(label)
        .description(description);
  }
}
