package dev.entangle.batch;

import java.nio.file.Path;

/**
 * One case of a manifest.
 *
 * @param index its position in the manifest, from 0
 * @param name a name unique in the manifest
 * @param gs where G_s comes from
 * @param gd where G_d comes from
 * @param relation the relation file
 * @param expect the verdicts (and failing operator) it must give
 * @param timeoutSeconds its own time limit, or null for the run's
 */
public record BatchCase(
    int index,
    String name,
    GraphSource gs,
    GraphSource gd,
    Path relation,
    Expectation expect,
    Double timeoutSeconds) {}
