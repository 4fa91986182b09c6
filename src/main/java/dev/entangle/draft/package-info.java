/**
 * Drafting an input relation from what the graphs say: G_s inputs matched with G_d inputs by name
 * or tag, their shapes on every rank (equal: replicated; adding up along one dim: sharded in rank
 * order), and the slices their uses take (a fused projection whose blocks each shard across ranks).
 * Each proposal says how sure it is and why; what cannot be decided is listed for the user. A draft
 * is a file for people to read, never an input {@code check} trusts on its own.
 */
package dev.entangle.draft;
