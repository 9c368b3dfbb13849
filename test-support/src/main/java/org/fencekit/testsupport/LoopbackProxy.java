package org.fencekit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a free loopback port in front of one server's loopback port, for a test that cuts
 * a client's connections to that server: {@link #cut()} closes every connection and refuses new
 * ones until {@link #heal()}. Each connection is two daemon threads copying bytes.
 */
public final class LoopbackProxy implements AutoCloseable {

  private final int port;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile ServerSocket listener;

  private LoopbackProxy(int port, int target) {
    this.port = port;
    this.target = target;
  }

  /** A proxy to {@code 127.0.0.1:target}, accepting at once. */
  public static LoopbackProxy to(int target) {
    LoopbackProxy proxy = new LoopbackProxy(LoopbackPorts.closed(), target);
    proxy.heal();
    return proxy;
  }

  /** The port the proxy listens on. */
  public int port() {
    return port;
  }

  /** Closes every connection through the proxy and stops accepting: clients see a refused port. */
  public synchronized int cut() {
    int cut = sockets.size();
    closeQuietly(listener);
    listener = null;
    sockets.forEach(LoopbackProxy::closeQuietly);
    sockets.clear();
    return cut;
  }

  /** Accepts connections again (the first call opens the port). */
  public synchronized void heal() {
    if (listener != null) {
      return;
    }
    try {
      ServerSocket socket = new ServerSocket();
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      listener = socket;
      daemon("proxy-accept-" + port, () -> accept(socket));
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on 127.0.0.1:" + port, e);
    }
  }

  private void accept(ServerSocket socket) {
    while (!socket.isClosed()) {
      try {
        Socket client = socket.accept();
        Socket server;
        try {
          server = new Socket(InetAddress.getLoopbackAddress(), target);
        } catch (IOException refused) {
          closeQuietly(client);
          continue;
        }
        sockets.add(client);
        sockets.add(server);
        daemon("proxy-up-" + port, () -> pump(client, server));
        daemon("proxy-down-" + port, () -> pump(server, client));
      } catch (IOException e) {
        // closed by cut(), or the target refused: the client sees its connection closed
      }
    }
  }

  private static void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // cut, or one side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    cut();
  }

  @Override
  public String toString() {
    return "LoopbackProxy[127.0.0.1:" + port + " -> 127.0.0.1:" + target + "]";
  }
}
