package io.infermark.testkit.simulator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;

/** Base64 media for tests of the simulator's media token model: just the bytes that model reads. */
public final class MediaFiles {

  private MediaFiles() {}

  /** The header of a PNG of the given size (all the model reads), padded as IHDR's rest and CRC. */
  public static String png(int width, int height) {
    ByteBuffer b = ByteBuffer.allocate(33);
    b.put(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 'I', 'H', 'D', 'R'});
    b.putInt(width).putInt(height);
    return Base64.getEncoder().encodeToString(b.array());
  }

  /** A WAV of {@code dataBytes} bytes of silence at {@code byteRate} bytes per second. */
  public static String wav(int dataBytes, int byteRate) {
    ByteBuffer b = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {'R', 'I', 'F', 'F'}).putInt(36 + dataBytes).put(new byte[] {'W', 'A', 'V', 'E'});
    b.put(new byte[] {'f', 'm', 't', ' '}).putInt(16).putShort((short) 1).putShort((short) 1).putInt(byteRate / 2)
        .putInt(byteRate).putShort((short) 2).putShort((short) 16);
    b.put(new byte[] {'d', 'a', 't', 'a'}).putInt(dataBytes);
    return Base64.getEncoder().encodeToString(b.array());
  }
}
