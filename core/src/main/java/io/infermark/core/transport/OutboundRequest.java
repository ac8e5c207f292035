package io.infermark.core.transport;

import io.infermark.core.request.HeaderRules;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One HTTP request as a transport sends it: method, absolute URL, headers in order and the body,
 * already encoded, with the timeouts that bound its exchange.
 *
 * <p>{@link #toString()} names the method and URL without userinfo and never shows header values,
 * which may hold credentials.
 *
 * @param method the HTTP method, e.g. {@code POST}
 * @param url an absolute {@code http} or {@code https} URL
 * @param headers header fields in the order they are sent, names and values already validated
 * @param body the encoded body (empty for none)
 * @param contentType the body's media type, e.g. {@code application/json}; empty for none
 * @param timeouts bounds of the exchange
 */
public record OutboundRequest(String method, URI url, List<Header> headers, byte[] body, String contentType,
    Timeouts timeouts) {

  /** One header field. */
  public record Header(String name, String value) {
    /** Validates: a token name and a value without CR, LF or NUL. */
    public Header {
      HeaderRules.check(name, value);
    }

    @Override
    public String toString() {
      return name + ": ***";
    }
  }

  /** Validates; the body array is kept as given, so do not change it after building. */
  public OutboundRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(url, "url");
    headers = List.copyOf(headers);
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(timeouts, "timeouts");
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("not an http(s) URL: " + redactedUrl(url));
    }
    if (url.getHost() == null) {
      throw new IllegalArgumentException("URL has no host: " + redactedUrl(url));
    }
  }

  /** True for {@code https}. */
  public boolean secure() {
    return url.getScheme().equalsIgnoreCase("https");
  }

  /** The port, the scheme's default when the URL names none. */
  public int port() {
    return url.getPort() >= 0 ? url.getPort() : secure() ? 443 : 80;
  }

  /** The request target: raw path and query, {@code /} for an empty path. */
  public String pathAndQuery() {
    String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    return url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
  }

  /** The URL without userinfo, safe to log. */
  public static String redactedUrl(URI url) {
    if (url.getRawUserInfo() == null) {
      return url.toString();
    }
    return url.toString().replace(url.getRawUserInfo() + "@", "***@");
  }

  @Override
  public String toString() {
    return "OutboundRequest[" + method + " " + redactedUrl(url) + ", " + headers.size() + " headers, " + body.length
        + " body bytes]";
  }
}
