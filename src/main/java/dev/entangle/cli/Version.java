package dev.entangle.cli;

import picocli.CommandLine.IVersionProvider;

/** The version printed by {@code --version}. */
final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = Version.class.getPackage().getImplementationVersion();
    return new String[] {"entangle " + (v == null ? "(development build)" : v)};
  }
}
