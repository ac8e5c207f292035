/**
 * Token counting: the {@link io.infermark.core.tokens.TokenCounter} SPI and its vocabulary-free estimate.
 *
 * <p>May import: {@code io.infermark.core.request}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.tokens;
