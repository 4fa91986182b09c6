package dev.entangle.refine;

import java.time.Duration;

/**
 * Limits of a check. A limit reached before a proof gives {@link Verdict#INCONCLUSIVE}.
 *
 * @param timeout the whole check's time limit
 * @param nodeLimit most e-nodes in one operator's e-graph
 * @param iterationLimit most lemma iterations per saturation
 * @param exploreLimit most G_d values brought into one operator's e-graph
 * @param alternatives how many distinct clean expressions to keep per G_s tensor
 * @param jobs how many operators may be checked at once (outcomes are the same for any number)
 * @param replay whether a saturation is replayed from an earlier operator whose e-graph was built
 *     alike rather than searched again (outcomes are the same either way)
 * @param hotUsers how many users make a G_d value hot, its users then looked at near each operator
 *     only ({@link GdModel#hot}; outcomes are the same for any number)
 * @param chainsGoOn whether a deferred chain's next operation is checked in the e-graph of the
 *     chain's last one ({@link OperatorCheck#continueWith}) rather than in a fresh one (the same
 *     verdicts are meant either way, and ChainsGoOnTest holds every example and real-world case to
 *     them; the e-graph that goes on holds more, and could offer other clean expressions)
 */
public record CheckOptions(
    Duration timeout,
    int nodeLimit,
    int iterationLimit,
    int exploreLimit,
    int alternatives,
    int jobs,
    boolean replay,
    int hotUsers,
    boolean chainsGoOn) {
  public static CheckOptions defaults() {
    return new CheckOptions(
        Duration.ofSeconds(600), 200_000, 40, 5_000, 4, 1, true, GdModel.HOT_USERS, true);
  }

  public CheckOptions withTimeout(Duration t) {
    return new CheckOptions(
        t,
        nodeLimit,
        iterationLimit,
        exploreLimit,
        alternatives,
        jobs,
        replay,
        hotUsers,
        chainsGoOn);
  }

  public CheckOptions withNodeLimit(int n) {
    return new CheckOptions(
        timeout, n, iterationLimit, exploreLimit, alternatives, jobs, replay, hotUsers, chainsGoOn);
  }

  public CheckOptions withReplay(boolean r) {
    return new CheckOptions(
        timeout,
        nodeLimit,
        iterationLimit,
        exploreLimit,
        alternatives,
        jobs,
        r,
        hotUsers,
        chainsGoOn);
  }

  public CheckOptions withHotUsers(int n) {
    return new CheckOptions(
        timeout,
        nodeLimit,
        iterationLimit,
        exploreLimit,
        alternatives,
        jobs,
        replay,
        n,
        chainsGoOn);
  }

  public CheckOptions withJobs(int n) {
    return new CheckOptions(
        timeout,
        nodeLimit,
        iterationLimit,
        exploreLimit,
        alternatives,
        n,
        replay,
        hotUsers,
        chainsGoOn);
  }

  public CheckOptions withChainsGoingOn(boolean on) {
    return new CheckOptions(
        timeout, nodeLimit, iterationLimit, exploreLimit, alternatives, jobs, replay, hotUsers, on);
  }
}
