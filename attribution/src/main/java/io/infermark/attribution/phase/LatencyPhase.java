package io.infermark.attribution.phase;

import java.util.Locale;

/**
 * One consecutive stretch of a request's end-to-end latency, in the order they happen. Each phase
 * ends at a milestone of the {@link io.infermark.core.capture.RequestRecord record}; the first starts
 * at the latency's origin (the intended send for {@link LatencyBasis#RESPONSE_TIME}, the actual send
 * for {@link LatencyBasis#SERVICE_TIME}) and the last ends at the last token-bearing chunk, where
 * {@code E2E} ends. See {@link RequestPhases} for how absent and out-of-order milestones are handled.
 */
public enum LatencyPhase {

  /**
   * Intended send → actual send: the schedule lag, time the request waited in the client because the
   * client was behind. Only in {@link LatencyBasis#RESPONSE_TIME}.
   */
  CLIENT_QUEUE("intended send -> send (schedule lag)"),

  /**
   * Send → a pipeline's retrieval stage done ({@code RETRIEVAL_END}): the retriever's time before the
   * generation request starts. Only in the {@code *_WITH_RETRIEVAL} bases; zero without a retrieval stage.
   */
  RETRIEVAL("send -> retrieval stage done (pipeline targets)"),

  /**
   * Send → TCP connection up ({@code SECURE_CONNECT_START} with TLS, else {@code CONNECT_END}): name
   * resolution, TCP connect and the client's work before them. Zero on a reused connection.
   */
  CONNECT("send -> TCP connected (DNS + TCP), new connections only"),

  /** TLS handshake: {@code SECURE_CONNECT_START → SECURE_CONNECT_END}. Zero without a new TLS connection. */
  TLS("TLS handshake, new TLS connections only"),

  /**
   * HTTP/2's SETTINGS exchange: connection established ({@code CONNECT_END}, the client's preface out) →
   * the server's SETTINGS ({@code SETTINGS_RECEIVED}), one round trip that a sidecar or gateway in front of
   * the server can stretch. Zero on HTTP/1.1 and on a reused connection.
   */
  SETTINGS("connection established -> server's HTTP/2 SETTINGS, new HTTP/2 connections only"),

  /**
   * End of connection set-up (the SETTINGS on HTTP/2; or send, on a reused connection) → request fully written
   * ({@code REQUEST_SENT}): acquiring the connection and writing headers and body.
   */
  REQUEST_WRITE("connection ready (or send) -> request written"),

  /** Request written → first byte of the response headers: the server's time to first byte. */
  WAITING("request written -> first response byte (TTFB)"),

  /** First response byte → first token-bearing chunk: role chunks, prefill streamed after the headers. */
  FIRST_BYTE_TO_FIRST_TOKEN("first response byte -> first token-bearing chunk"),

  /** First token-bearing chunk → last token-bearing chunk (where E2E ends). */
  DECODE("first token -> last token (E2E end)");

  private final String definition;

  LatencyPhase(String definition) {
    this.definition = definition;
  }

  /** The phase's start and end milestones in one line. */
  public String definition() {
    return definition;
  }

  /** The lower-case name used in tables and feature names, e.g. {@code first_byte_to_first_token}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
