/**
 * Servers and certificates the modules' tests share: {@link io.infermark.testfixtures.RawServer}
 * (raw HTTP/1.1 sockets), {@link io.infermark.testfixtures.RawH2} (HTTP/2 frames by hand),
 * {@link io.infermark.testfixtures.TestCertificate} (a self-signed certificate for localhost) and
 * {@link io.infermark.testfixtures.MockServers} (MockWebServers over h2c or TLS). It imports no
 * infermark package, so core's own tests can use it; it is never a runtime dependency.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.testfixtures;
