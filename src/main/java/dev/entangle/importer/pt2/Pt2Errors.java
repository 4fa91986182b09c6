package dev.entangle.importer.pt2;

import dev.entangle.util.InputException;

/**
 * Makes the one-paragraph errors of reading one archive: each names the archive, the part of the
 * program (a node, an input), what is wrong and what to do.
 *
 * @param file the archive as given on the command line
 * @param where the part being read, e.g. {@code "node mm"}, or null for the archive as a whole
 */
record Pt2Errors(String file, String where) {
  /** The advice for archives that are not what torch.export.save writes. */
  static final String RESAVE =
      "Save the program again with torch.export.save (a current torch), or import the printed"
          + " graph code instead (GraphModule.print_readable()).";

  /** The same archive, about another part of it. */
  Pt2Errors at(String part) {
    return new Pt2Errors(file, part);
  }

  /** The archive holds something torch.export.save does not write. */
  InputException damaged(String what) {
    return new InputException(
        prefix()
            + what
            + ", so the archive is damaged or not one torch.export.save wrote. "
            + RESAVE);
  }

  /** The archive holds something valid that entangle does not read. */
  InputException unsupported(String what, String advice) {
    return new InputException(prefix() + what + ". " + advice);
  }

  private String prefix() {
    return file + ": " + (where == null ? "" : where + ": ");
  }
}
