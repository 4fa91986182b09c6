package dev.entangle.draft;

import java.util.List;

/**
 * A drafted input relation.
 *
 * @param worldSize G_d's ranks
 * @param proposals one entry per G_s input it could relate, in G_s order
 * @param undecided the G_s inputs it could not relate, in G_s order
 * @param unrelatedGd G_d inputs no proposal uses ({@code rK.NAME}), for the user to look at
 */
public record Draft(
    int worldSize, List<Proposal> proposals, List<Undecided> undecided, List<String> unrelatedGd) {
  public Draft {
    proposals = List.copyOf(proposals);
    undecided = List.copyOf(undecided);
    unrelatedGd = List.copyOf(unrelatedGd);
  }
}
