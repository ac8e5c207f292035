/**
 * The simulator's transports: the HTTP/1.1 server ({@link
 * io.infermark.testkit.simulator.server.NettyHttp1Server}) and the cleartext or TLS HTTP/2 server
 * ({@link io.infermark.testkit.simulator.server.NettyH2Server}, with KServe v2 gRPC framing in
 * {@link io.infermark.testkit.simulator.server.GrpcInferenceService}), both on Netty, the one
 * {@link io.infermark.testkit.simulator.server.Exchange} they hand to the simulator's router per
 * request, the chunk buffer its streams are written through, and the self-signed certificate of a
 * TLS simulator. It knows nothing of generation: whatever answers a request is an
 * {@link io.infermark.testkit.simulator.server.Exchange.Handler}. <strong>Internal</strong>: public
 * only so {@link io.infermark.testkit.simulator} can reach it; its types may change in any release.
 *
 * <p>May import: no other infermark package. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.testkit.simulator.server;
