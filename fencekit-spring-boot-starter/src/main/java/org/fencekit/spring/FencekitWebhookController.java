package org.fencekit.spring;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.fencekit.webhook.Answer;
import org.fencekit.webhook.WebhookCore;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * The webhook ({@code POST ${fencekit.webhook.path}}) and the success page ({@code GET
 * ${fencekit.success-page.path}?session_id=...}) on Spring MVC: reads the request, lets the {@link
 * WebhookCore} decide, writes its answer (its status, one line of JSON, its headers). Another
 * method on either path is answered 405 as fencekit's server answers it.
 */
@RestController
public class FencekitWebhookController {

  private final FencekitWebhook webhook;
  private final WebhookCore core;
  private final long answerTimeoutMillis;
  private final Answer timedOut;

  /**
   * @param webhook the core
   * @param properties the lease, for how long an answer may take
   */
  public FencekitWebhookController(FencekitWebhook webhook, FencekitProperties properties) {
    this.webhook = webhook;
    this.core = webhook.core();
    // a delivery is cut off before its lease runs out: never wait longer than a slot and a lease
    Duration slotAndLease = properties.getWebhook().getQueueTime().plus(properties.getLease());
    this.answerTimeoutMillis = slotAndLease.plus(Duration.ofSeconds(30)).toMillis();
    String reason = "no answer within " + answerTimeoutMillis + " ms; try again after Retry-After";
    this.timedOut =
        Answer.error(503, "answer_timeout", reason).with("Retry-After", WebhookCore.RETRY_AFTER);
  }

  /** A delivery from Stripe. */
  @PostMapping("${fencekit.webhook.path:/stripe/webhook}")
  public DeferredResult<ResponseEntity<String>> webhook(HttpServletRequest request) {
    Answer early = core.beforeBody(request.getContentLengthLong());
    if (early != null) {
      return now(early);
    }
    int limit = core.limits().maxBodyBytes();
    long deadline = System.nanoTime() + core.limits().bodyTimeout().toNanos();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    try (InputStream in = request.getInputStream()) {
      int n;
      while ((n = in.read(chunk)) != -1) {
        if (body.size() + n > limit) {
          return now(core.tooLarge("more than " + limit + " bytes sent"));
        }
        body.write(chunk, 0, n);
        if (System.nanoTime() > deadline) {
          return now(core.bodyTimedOut());
        }
      }
    } catch (SocketTimeoutException e) {
      return now(core.bodyStalled());
    } catch (IOException e) {
      return now(core.unreadableBody());
    }
    byte[] bytes = body.toByteArray();
    return later(() -> core.webhook(request.getHeader("Stripe-Signature"), bytes));
  }

  /** Any other method on the webhook's path: 405, as fencekit's server answers it. */
  @RequestMapping("${fencekit.webhook.path:/stripe/webhook}")
  public ResponseEntity<String> webhookOtherMethod() {
    return entity(core.methodNotAllowed("POST", true));
  }

  /**
   * {@code OPTIONS} on the webhook's path: 405, as fencekit's server answers it (Spring MVC would
   * answer it 200 with an empty body itself, since no mapping names the method).
   */
  @RequestMapping(path = "${fencekit.webhook.path:/stripe/webhook}", method = RequestMethod.OPTIONS)
  public ResponseEntity<String> webhookOptions() {
    return webhookOtherMethod();
  }

  /** {@code OPTIONS} on the success page's path: 405, as fencekit's server answers it. */
  @RequestMapping(
      path = "${fencekit.success-page.path:/checkout/success}",
      method = RequestMethod.OPTIONS)
  public ResponseEntity<String> successPageOptions() {
    return successPageOtherMethod();
  }

  /** The customer's landing, asked by the success page's backend. */
  @GetMapping("${fencekit.success-page.path:/checkout/success}")
  public DeferredResult<ResponseEntity<String>> successPage(HttpServletRequest request) {
    return later(() -> core.successPage(request.getParameter("session_id")));
  }

  /** Any other method on the success page's path: 405. */
  @RequestMapping("${fencekit.success-page.path:/checkout/success}")
  public ResponseEntity<String> successPageOtherMethod() {
    return entity(core.methodNotAllowed("GET", false));
  }

  /**
   * The answer {@code decide} starts, written when it is decided. It is counted from before the
   * decision until written: a stop waits for the writing, not only the decision (the container
   * writes the answer later, on a thread of its own).
   */
  private DeferredResult<ResponseEntity<String>> later(Supplier<CompletableFuture<Answer>> decide) {
    Runnable written = webhook.writing();
    DeferredResult<ResponseEntity<String>> result =
        new DeferredResult<>(answerTimeoutMillis, () -> entity(timedOut));
    result.onCompletion(written);
    CompletableFuture<Answer> answer;
    try {
      answer = decide.get();
    } catch (RuntimeException | Error e) {
      written.run();
      throw e;
    }
    answer.whenComplete(
        (done, failure) -> result.setResult(entity(done != null ? done : Answer.failed())));
    return result;
  }

  private static DeferredResult<ResponseEntity<String>> now(Answer answer) {
    DeferredResult<ResponseEntity<String>> result = new DeferredResult<>();
    result.setResult(entity(answer));
    return result;
  }

  private static ResponseEntity<String> entity(Answer answer) {
    ResponseEntity.BodyBuilder builder =
        ResponseEntity.status(HttpStatusCode.valueOf(answer.status()))
            .contentType(MediaType.APPLICATION_JSON);
    for (Map.Entry<String, String> header : answer.headers().entrySet()) {
      builder.header(header.getKey(), header.getValue());
    }
    return builder.body(answer.body() + "\n");
  }
}
