/**
 * Collectives: reading functional collectives ({@code Collective}), pairing them across ranks into
 * groups ({@code CollectiveGroups}), and their values as core terms over every member's input
 * ({@code CollectiveLowering}).
 */
package dev.entangle.lower.collectives;
