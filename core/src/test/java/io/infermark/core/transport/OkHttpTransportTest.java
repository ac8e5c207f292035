package io.infermark.core.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import javax.net.SocketFactory;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

class OkHttpTransportTest {

  @Test
  void preparingForALargeLoadSizesTheDispatcherAndPoolBeyondOkHttpDefaults() {
    try (OkHttpTransport transport = OkHttpTransport.create()) {
      transport.prepare(512);
      OkHttpClient client = transport.client(Timeouts.DEFAULT);
      assertThat(client.dispatcher().getMaxRequestsPerHost()).isEqualTo(512);
      assertThat(client.dispatcher().getMaxRequests()).isEqualTo(512);
      assertThatThrownBy(() -> transport.prepare(0)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void retriesAndRedirectsAreOffSoNothingIsHidden() {
    try (OkHttpTransport transport = OkHttpTransport.create()) {
      OkHttpClient client = transport.client(Timeouts.DEFAULT);
      assertThat(client.retryOnConnectionFailure()).isFalse();
      assertThat(client.followRedirects()).isFalse();
      assertThat(client.followSslRedirects()).isFalse();
    }
  }

  @Test
  void everySocketHasNagleOff() throws IOException {
    try (OkHttpTransport transport = OkHttpTransport.of(new OkHttpClient(), java.time.Duration.ofSeconds(1));
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      SocketFactory factory = transport.client(Timeouts.DEFAULT).socketFactory();
      try (Socket unconnected = factory.createSocket();
          Socket connected = factory.createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
        assertThat(unconnected.getTcpNoDelay()).isTrue();
        assertThat(connected.getTcpNoDelay()).isTrue();
      }
    }
  }

  @Test
  void aUsersOwnSocketFactoryIsWrappedNotReplaced() throws IOException {
    int[] made = new int[1];
    SocketFactory counting = new SocketFactory() {
      @Override
      public Socket createSocket() {
        made[0]++;
        return new Socket();
      }

      @Override
      public Socket createSocket(String h, int p) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Socket createSocket(String h, int p, InetAddress a, int lp) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Socket createSocket(InetAddress h, int p) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Socket createSocket(InetAddress h, int p, InetAddress a, int lp) {
        throw new UnsupportedOperationException();
      }
    };
    try (OkHttpTransport transport = OkHttpTransport.of(new OkHttpClient.Builder().socketFactory(counting).build(),
        java.time.Duration.ofSeconds(1)); Socket s = transport.client(Timeouts.DEFAULT).socketFactory().createSocket()) {
      assertThat(made[0]).isEqualTo(1);
      assertThat(s.getTcpNoDelay()).isTrue();
    }
  }
}
