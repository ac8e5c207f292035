package io.infermark.core.transport.netty;

import io.infermark.core.transport.OutboundRequest;
import java.util.Locale;

/** Where a pool's connections go: scheme, lower-case host (without IPv6 brackets) and port. */
record PoolKey(String host, int port, boolean secure) {

  static PoolKey of(OutboundRequest r) {
    String host = r.url().getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new PoolKey(host.toLowerCase(Locale.ROOT), r.port(), r.secure());
  }

  /** {@code host:port} for messages, IPv6 in brackets. */
  String authority() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
