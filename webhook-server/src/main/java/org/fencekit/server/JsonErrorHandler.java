package org.fencekit.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

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
    String body = core.count(new WebhookCore.Answer(code, answer(code))).body() + "\n";
    response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
  }

  /** The one line of JSON each status is answered with: its error and a fixed reason. */
  private static String answer(int code) {
    return switch (code) {
      case 404 -> WebhookCore.error("not_found", "no such route; Stripe posts to /webhook");
      case 408 -> WebhookCore.error("body_timeout", "the request did not arrive in time");
      case 413 -> WebhookCore.error("body_too_large", "the request is too large");
      case 414 -> WebhookCore.error("bad_request", "the request line is too long");
      case 431 -> WebhookCore.error("bad_request", "the request's headers are too large");
      case 501 -> WebhookCore.error("bad_request", "this server does not implement that");
      case 505 -> WebhookCore.error("bad_request", "this server speaks HTTP/1.1 and HTTP/1.0 only");
      default ->
          code >= 500
              ? WebhookCore.error(
                  "internal", "the server failed on this request (logged); Stripe will retry")
              : WebhookCore.error("bad_request", "the request is not well-formed HTTP/1.1");
    };
  }
}
