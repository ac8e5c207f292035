/**
 * Where to send it: the {@link io.infermark.core.protocol.Target} SPI and one target per protocol (OpenAI
 * chat/completions/Responses, Anthropic Messages, Ollama, TGI, llama.cpp, Triton HTTP and gRPC), the HTTP
 * exchange that feeds a stream parser, redaction of secrets, and the token counter calibrated against a
 * server.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.health},
 * {@code io.infermark.core.request}, {@code io.infermark.core.stream}, {@code io.infermark.core.time},
 * {@code io.infermark.core.tokens}, {@code io.infermark.core.transport},
 * {@code io.infermark.core.transport.netty}, {@code io.infermark.core.workload}. Nothing else of infermark:
 * the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.protocol;
