package dev.entangle.cli;

import java.nio.file.Path;

/**
 * What a report calls a checked case, and the files it was checked from.
 *
 * @param name a short name: the batch case's, or the folder of the G_s file
 * @param gs the G_s file as given
 * @param gd the G_d file as given
 * @param relation the relation file as given
 */
record CaseLabel(String name, String gs, String gd, String relation) {

  /**
   * A label for {@code entangle check GS GD --rel RI}: named {@code name} when given, else by the
   * folder holding GS.
   */
  static CaseLabel of(Path gs, Path gd, Path relation, String name) {
    if (name != null && !name.isBlank()) {
      return new CaseLabel(name, gs.toString(), gd.toString(), relation.toString());
    }
    return of(gs, gd, relation);
  }

  /** A label for {@code entangle check GS GD --rel RI}: named by the folder holding GS. */
  static CaseLabel of(Path gs, Path gd, Path relation) {
    Path abs = gs.toAbsolutePath().normalize();
    Path folder = abs.getParent();
    String name =
        folder != null && folder.getFileName() != null
            ? folder.getFileName().toString()
            : abs.getFileName().toString();
    return new CaseLabel(name, gs.toString(), gd.toString(), relation.toString());
  }
}
