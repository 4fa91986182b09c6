/**
 * Small helpers every stage shares: {@code InputException} (a user's input is wrong, located) and
 * {@code IoReason} (an I/O failure in words).
 */
package dev.entangle.util;
