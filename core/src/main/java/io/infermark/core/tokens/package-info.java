/** Token counting: the {@link io.infermark.core.tokens.TokenCounter} SPI and its vocabulary-free estimate. */
package io.infermark.core.tokens;
