package org.fencekit.spring;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.fencekit.webhook.Answer;
import org.fencekit.webhook.WebhookCore;

/**
 * The servlet container's own error answers on the webhook's path, as fencekit's server gives them:
 * on the error dispatch of a request for that path (a {@code TRACE} the container refuses, a
 * failure inside the controller), one line of JSON, counted with the webhook's answers, instead of
 * the application's error page (an HTML page for a client that accepts HTML). Other paths' errors
 * go on to the application's error handling. What the container answers before a request is
 * dispatched at all (a request line or headers it cannot parse) it answers itself; see the README.
 */
public final class FencekitWebhookErrorFilter implements Filter {

  private final WebhookCore core;
  private final String path;

  /**
   * @param core the core that shapes and counts the answers
   * @param path the webhook's path, {@code fencekit.webhook.path}
   */
  public FencekitWebhookErrorFilter(WebhookCore core, String path) {
    this.core = core;
    this.path = path;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
    Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    if (!(status instanceof Integer code)
        || !(request.getContextPath() + path).equals(uri)
        || res.isCommitted()) {
      chain.doFilter(req, res);
      return;
    }
    Answer answer = code == 405 ? core.methodNotAllowed("POST", true) : core.protocolError(code);
    HttpServletResponse response = (HttpServletResponse) res;
    response.resetBuffer();
    response.setStatus(answer.status());
    for (Map.Entry<String, String> header : answer.headers().entrySet()) {
      response.setHeader(header.getKey(), header.getValue());
    }
    response.setContentType("application/json");
    byte[] body = (answer.body() + "\n").getBytes(StandardCharsets.UTF_8);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
