package org.fencekit.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.fencekit.webhook.WebhookCore;

/**
 * Jetty's own answers (a request it cannot parse, headers too large, a failure of ours) as the
 * server's other answers: one line of JSON with {@code error} and a fixed {@code reason}, never an
 * HTML page, never Jetty's message or an exception's text; each counted with the webhook's answers
 * (such a request may have been a delivery, and its client got this answer).
 */
final class JsonErrorHandler extends ErrorHandler {

  private final WebhookCore core;

  JsonErrorHandler(WebhookCore core) {
    this.core = core;
  }

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    String body = core.protocolError(code).body() + "\n";
    response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
  }
}
