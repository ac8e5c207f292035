package io.infermark.benchmarks;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What one streamed chunk costs the server that writes it, by transport: the bare-socket floor a
 * streamed token cannot go under on either side (the simulator's server moved from hand-written NIO onto
 * Netty without its cost rising; see docs/simulator.md). Not a test; a measurement.
 *
 * <p>For each transport it opens {@code streams} loopback connections, and every {@code tickMillis}
 * the server side writes one SSE-sized chunk ({@code bytes}, default 230: a chat delta) to every
 * connection with one flush (one {@code write} system call) each, as the simulator does for each
 * stream that got a token in a step. One client thread reads every connection through one selector
 * (an event-loop client, as vLLM's aiohttp or infermark's Netty transport). It prints the writing
 * thread's CPU per chunk (user and system, from {@code ThreadMXBean}), which includes the loopback
 * receive path the kernel runs in the writer's context, and the reading thread's CPU per chunk read:
 * together, the floor a client and a server on this machine cannot go under when every streamed token
 * travels in its own TCP segment (each token a {@code write} on one side and a {@code read} on the other).
 *
 * <ul>
 *   <li>{@code jdk-nio}: a platform thread parks until each tick and calls
 *       {@code SocketChannel.write(heap ByteBuffer)} per connection, as the simulator's clock and
 *       writer threads do;
 *   <li>{@code netty-epoll} / {@code netty-nio}: Netty 4.2 with the native epoll (or NIO) transport,
 *       the tick a task scheduled at fixed rate on the channels' event loop, each chunk a pooled direct
 *       buffer written and flushed (Netty's best case: no cross-thread hand-off).
 * </ul>
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.SimulatorWriteCost
 * [streams=256] [seconds=10] [tickMillis=1] [bytes=230] [transports=jdk-nio,netty-epoll,netty-nio]}.
 */
public final class SimulatorWriteCost {

  private SimulatorWriteCost() {}

  /**
   * Runs each transport in turn and prints one line per transport.
   *
   * @param args streams, seconds, milliseconds between rounds, chunk bytes, transports (all optional)
   * @throws Exception if a socket cannot be opened or the measurement is interrupted
   */
  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 256;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    double tickMillis = args.length > 2 ? Double.parseDouble(args[2]) : 1;
    int bytes = args.length > 3 ? Integer.parseInt(args[3]) : 230;
    String[] transports = (args.length > 4 ? args[4] : "jdk-nio,netty-epoll,netty-nio").split(",");
    byte[] chunk = chunk(bytes);
    System.out.printf(Locale.ROOT, "%d streams, a %d-byte chunk to each every %.2f ms (%.0f writes/s offered), "
        + "%d s measured after 3 s warm-up, %d cores, Java %s; load average %s%n", streams, bytes, tickMillis,
        streams * 1000 / tickMillis, seconds, Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), loadAverage());
    for (String t : transports) {
      switch (t) {
        case "jdk-nio" -> jdkNio(streams, seconds, tickMillis, chunk);
        case "netty-epoll" -> {
          if (Epoll.isAvailable()) {
            netty("netty-epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, streams, seconds,
                tickMillis, chunk);
          } else {
            System.out.println("netty-epoll: native epoll unavailable: " + Epoll.unavailabilityCause());
          }
        }
        case "netty-nio" -> netty("netty-nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, streams,
            seconds, tickMillis, chunk);
        default -> throw new IllegalArgumentException("unknown transport " + t
            + "; use jdk-nio, netty-epoll or netty-nio");
      }
    }
    System.out.println("load average after: " + loadAverage());
  }

  private static byte[] chunk(int bytes) {
    byte[] b = new byte[bytes];
    byte[] text = ("e6\r\ndata: {\"id\":\"chatcmpl-0123456789abcdef\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1700000000,\"model\":\"infermark-sim\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
        + "\" the\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n\r\n").getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < bytes; i++) {
      b[i] = text[i % text.length];
    }
    return b;
  }

  /** Reads and discards everything on the client sides of the connections, on one thread. */
  private static final class Reader implements AutoCloseable {
    final Selector selector = Selector.open();
    final List<java.nio.channels.SocketChannel> channels = new ArrayList<>();
    final AtomicLong bytesRead = new AtomicLong();
    /** Reads that returned bytes: the chunks this one thread noticed and read. */
    final AtomicLong reads = new AtomicLong();
    final Thread thread = new Thread(this::loop, "client-reader");
    volatile boolean closed;

    Reader(InetSocketAddress server, int streams) throws IOException {
      for (int i = 0; i < streams; i++) {
        java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(server);
        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
        c.configureBlocking(false);
        c.register(selector, SelectionKey.OP_READ);
        channels.add(c);
      }
      thread.setDaemon(true);
      thread.start();
    }

    private void loop() {
      ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
      try {
        while (!closed) {
          selector.select(key -> {
            try {
              buf.clear();
              int n = ((java.nio.channels.SocketChannel) key.channel()).read(buf);
              if (n > 0) {
                bytesRead.addAndGet(n);
                reads.incrementAndGet();
              } else if (n < 0) {
                key.cancel();
              }
            } catch (IOException e) {
              key.cancel();
            }
          }, 100);
        }
      } catch (IOException | RuntimeException e) {
        if (!closed) {
          e.printStackTrace();
        }
      }
    }

    @Override
    public void close() throws IOException {
      closed = true;
      selector.wakeup();
      for (java.nio.channels.SocketChannel c : channels) {
        c.close();
      }
      try {
        thread.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      selector.close();
    }
  }

  private static void jdkNio(int streams, int seconds, double tickMillis, byte[] chunk) throws Exception {
    try (java.nio.channels.ServerSocketChannel listener = java.nio.channels.ServerSocketChannel.open()) {
      listener.bind(new InetSocketAddress("127.0.0.1", 0), streams);
      List<java.nio.channels.SocketChannel> accepted = new ArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          for (int i = 0; i < streams; i++) {
            java.nio.channels.SocketChannel c = listener.accept();
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.configureBlocking(false);
            accepted.add(c);
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      acceptor.start();
      try (Reader reader = new Reader((InetSocketAddress) listener.getLocalAddress(), streams)) {
        acceptor.join();
        AtomicLong writes = new AtomicLong();
        long[] cpu = new long[4];
        long[] readerCpu = new long[5];
        long readerId = reader.thread.getId();
        long tick = Math.round(tickMillis * 1e6);
        Thread writer = new Thread(() -> {
          ThreadMXBean mx = ManagementFactory.getThreadMXBean();
          ByteBuffer buf = ByteBuffer.wrap(chunk);
          long start = System.nanoTime();
          long measureFrom = start + TimeUnit.SECONDS.toNanos(3);
          long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
          boolean measuring = false;
          long next = start;
          while (true) {
            long now = System.nanoTime();
            if (!measuring && now - measureFrom >= 0) {
              measuring = true;
              cpu[0] = mx.getCurrentThreadCpuTime();
              cpu[1] = mx.getCurrentThreadUserTime();
              readerCpu[0] = mx.getThreadCpuTime(readerId);
              readerCpu[1] = mx.getThreadUserTime(readerId);
              readerCpu[4] = reader.reads.get();
              writes.set(0);
            }
            if (now - end >= 0) {
              cpu[2] = mx.getCurrentThreadCpuTime();
              cpu[3] = mx.getCurrentThreadUserTime();
              readerCpu[2] = mx.getThreadCpuTime(readerId);
              readerCpu[3] = mx.getThreadUserTime(readerId);
              readerCpu[4] = reader.reads.get() - readerCpu[4];
              return;
            }
            for (java.nio.channels.SocketChannel c : accepted) {
              buf.clear();
              try {
                c.write(buf);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              writes.incrementAndGet();
            }
            next += tick;
            long wait;
            while ((wait = next - System.nanoTime()) > 0) {
              LockSupport.parkNanos(wait);
            }
          }
        }, "server-writer");
        writer.start();
        writer.join();
        print("jdk-nio", writes.get(), cpu[2] - cpu[0], cpu[3] - cpu[1], seconds);
        printReader(writes.get(), readerCpu[4], readerCpu[2] - readerCpu[0], readerCpu[3] - readerCpu[1]);
      } finally {
        for (java.nio.channels.SocketChannel c : accepted) {
          c.close();
        }
      }
    }
  }

  private static void netty(String name, IoHandlerFactory io, Class<? extends ServerSocketChannel> type, int streams,
      int seconds, double tickMillis, byte[] chunk) throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, io);
    try {
      List<Channel> accepted = new CopyOnWriteArrayList<>();
      CountDownLatch all = new CountDownLatch(streams);
      Channel server = new ServerBootstrap().group(group).channel(type)
          .option(ChannelOption.SO_BACKLOG, streams)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                  accepted.add(ctx.channel());
                  all.countDown();
                }
              });
            }
          }).bind("127.0.0.1", 0).sync().channel();
      try (Reader reader = new Reader((InetSocketAddress) server.localAddress(), streams)) {
        if (!all.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("only " + accepted.size() + " of " + streams + " connections accepted");
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] loopThread = new long[1];
        group.next().submit(() -> loopThread[0] = Thread.currentThread().getId()).sync();
        AtomicLong writes = new AtomicLong();
        long tick = Math.round(tickMillis * 1e6);
        var task = group.next().scheduleAtFixedRate(() -> {
          for (Channel c : accepted) {
            ByteBuf b = c.alloc().directBuffer(chunk.length).writeBytes(chunk);
            c.write(b, c.voidPromise());
            c.flush();
            writes.incrementAndGet();
          }
        }, 0, tick, TimeUnit.NANOSECONDS);
        Thread.sleep(3_000);
        long cpu0 = mx.getThreadCpuTime(loopThread[0]);
        long user0 = mx.getThreadUserTime(loopThread[0]);
        long readerId = reader.thread.getId();
        long readerCpu0 = mx.getThreadCpuTime(readerId);
        long readerUser0 = mx.getThreadUserTime(readerId);
        long reads0 = reader.reads.get();
        writes.set(0);
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long cpu = mx.getThreadCpuTime(loopThread[0]) - cpu0;
        long user = mx.getThreadUserTime(loopThread[0]) - user0;
        long readerCpu = mx.getThreadCpuTime(readerId) - readerCpu0;
        long readerUser = mx.getThreadUserTime(readerId) - readerUser0;
        long reads = reader.reads.get() - reads0;
        long n = writes.get();
        task.cancel(false);
        print(name, n, cpu, user, seconds);
        printReader(n, reads, readerCpu, readerUser);
      } finally {
        server.close().sync();
        for (Channel c : accepted) {
          c.close();
        }
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  private static void print(String name, long writes, long cpuNanos, long userNanos, int seconds) {
    System.out.printf(Locale.ROOT, "%-12s %,10d writes (%,.0f/s): writer CPU %.2f us per chunk (user %.2f, system %.2f)"
        + "%n", name, writes, writes / (double) seconds, cpuNanos / 1e3 / Math.max(1, writes),
        userNanos / 1e3 / Math.max(1, writes), (cpuNanos - userNanos) / 1e3 / Math.max(1, writes));
  }

  /**
   * The reading side: one thread, a selector and a read into one reused direct buffer per ready
   * socket, nothing else. Its CPU per chunk is the floor under any client's cost per streamed token on
   * this machine when each token arrives in its own segment: the kernel's share (system time) cannot be
   * parsed or allocated away.
   */
  private static void printReader(long chunks, long reads, long cpuNanos, long userNanos) {
    System.out.printf(Locale.ROOT, "%-12s %,10d reads: bare selector reader CPU %.2f us per chunk (user %.2f, "
        + "system %.2f), %.2f us per read%n", "", reads, cpuNanos / 1e3 / Math.max(1, chunks),
        userNanos / 1e3 / Math.max(1, chunks), (cpuNanos - userNanos) / 1e3 / Math.max(1, chunks),
        cpuNanos / 1e3 / Math.max(1, reads));
  }

  private static String loadAverage() {
    try {
      String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "n/a";
    }
  }
}
