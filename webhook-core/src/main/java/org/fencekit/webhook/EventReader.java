package org.fencekit.webhook;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Objects;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a delivery into the event to handle, or the answer refusing it, in this order:
 *
 * <ol>
 *   <li>the {@code Stripe-Signature} header, against the signing secrets ({@link StripeSignature});
 *   <li>the body: UTF-8, one strict JSON object ({@link StrictJson});
 *   <li>a Stripe v1 event: {@code "object":"event"}, an {@code id} within its bounds, {@code
 *       created} a whole number of seconds; else 400 {@code unsupported_event};
 *   <li>a type other than a Checkout session's is {@link CheckoutEvent#other} (acknowledged,
 *       nothing bought);
 *   <li>a Checkout event's session, mapped to an order by the {@link SessionMapping}; one that
 *       cannot be is answered 500 {@code unmappable_session}, so Stripe retries once the mapping is
 *       fixed.
 * </ol>
 */
public final class EventReader {

  private static final Logger LOG = LoggerFactory.getLogger(EventReader.class);

  /** What a delivery reads as: an event to handle, or a refusal. */
  public sealed interface Result permits Accepted, Refused {}

  /**
   * A delivery to handle.
   *
   * @param event the event it carries
   */
  public record Accepted(CheckoutEvent event) implements Result {

    /** Checks the event is present. */
    public Accepted {
      Objects.requireNonNull(event, "event");
    }
  }

  /**
   * A delivery refused before anything is handled.
   *
   * @param answer what to answer it
   */
  public record Refused(Answer answer) implements Result {

    /** Checks the answer is present. */
    public Refused {
      Objects.requireNonNull(answer, "answer");
    }
  }

  private final StripeSignature signature;
  private final SessionMapping mapping;
  private final Clock clock;

  EventReader(StripeSignature signature, SessionMapping mapping, Clock clock) {
    this.signature = signature;
    this.mapping = mapping;
    this.clock = clock;
  }

  /**
   * The delivery, read.
   *
   * @param header the {@code Stripe-Signature} header, or {@code null}
   * @param body the whole body
   */
  public Result read(String header, byte[] body) {
    if (header == null || header.isBlank()) {
      return refused(
          400, "missing_signature", "no Stripe-Signature header: only Stripe may post here");
    }
    StripeSignature.Refusal refusal =
        signature.check(header, body, clock.instant().getEpochSecond());
    if (refusal != null) {
      return refused(400, refusal.error(), refusal.reason());
    }
    JsonObject root;
    try {
      // a decoder reports malformed input, where new String(...) would replace it
      String payload = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(body)).toString();
      JsonElement parsed = StrictJson.parse(payload);
      if (!parsed.isJsonObject()) {
        return malformed("the signed body is not one JSON object (an event)");
      }
      root = parsed.getAsJsonObject();
    } catch (CharacterCodingException e) {
      return malformed("the signed body is not UTF-8");
    } catch (JsonParseException e) {
      return malformed("the signed body is not valid JSON");
    }
    String eventId = StrictJson.string(root.get("id"));
    String type = StrictJson.string(root.get("type"));
    if (eventId == null || type == null) {
      return malformed("the event has no \"id\" or no \"type\" string");
    }
    String notV1 = notV1(root, eventId);
    if (notV1 != null) {
      return refused(400, "unsupported_event", notV1);
    }
    if (EventType.of(type) == EventType.OTHER) {
      return new Accepted(CheckoutEvent.other(eventId, Untrusted.id(type)));
    }
    JsonElement data = root.get("data");
    JsonElement object =
        data != null && data.isJsonObject() ? data.getAsJsonObject().get("object") : null;
    if (object == null || !object.isJsonObject()) {
      return malformed("a Checkout event's data.object must be the session, a JSON object");
    }
    return session(eventId, type, object.getAsJsonObject());
  }

  /** A Checkout event's session, mapped to its order. */
  private Result session(String eventId, String type, JsonObject session) {
    try {
      String paymentStatus = MetadataMapping.string(session, "payment_status");
      if (paymentStatus == null) {
        throw new IllegalArgumentException("the session has no payment_status");
      }
      return new Accepted(
          CheckoutEvent.of(
              eventId, type, Fields.paymentStatus(paymentStatus), mapping.snapshot(session)));
    } catch (RuntimeException e) {
      String sessionId = Fields.quote(StrictJson.string(session.get("id")), Fields.MAX_ID_LENGTH);
      String why = Untrusted.text(e.getMessage(), Untrusted.REASON_LENGTH);
      if (e instanceof IllegalArgumentException) {
        LOG.error(
            "webhook: a signed Checkout event for session {} cannot be mapped to an order ({});"
                + " answering 500 so Stripe retries: fix the mapping and the retry fulfils it",
            sessionId,
            why);
      } else {
        LOG.error("webhook: the session mapping failed on session {}", sessionId, e);
      }
      return refused(
          500,
          "unmappable_session",
          "session " + sessionId + " cannot be mapped to an order: " + why);
    }
  }

  /**
   * Why {@code root} is not a Stripe v1 event this endpoint understands, or {@code null} if it is
   * one: {@code "object":"event"}, {@code created} a whole number of seconds (1 to 12 ASCII
   * digits), an id within {@link Fields#id}'s bounds. A v2 event ({@code "object":"v2.core.event"})
   * is refused here, whatever its type: its shape is another.
   */
  private static String notV1(JsonObject root, String eventId) {
    String object = StrictJson.string(root.get("object"));
    if (!"event".equals(object)) {
      return "the signed body is not a Stripe v1 event: its \"object\" is "
          + (object == null ? "not a string" : "'" + Untrusted.prefix(object) + "'")
          + ", not 'event' (this endpoint takes v1 events, as a webhook endpoint or a v1"
          + " snapshot destination sends them; not v2 thin events)";
    }
    JsonElement created = root.get("created");
    if (created == null
        || !created.isJsonPrimitive()
        || !created.getAsJsonPrimitive().isNumber()
        || !Fields.digits(created.getAsString(), 12)) {
      return "the signed event's \"created\" is not a whole number of seconds (1 to 12 digits),"
          + " as a Stripe v1 event's is";
    }
    try {
      Fields.id("the event's \"id\"", eventId);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
  }

  private static Refused malformed(String reason) {
    return refused(400, "malformed_json", reason);
  }

  private static Refused refused(int status, String error, String reason) {
    return new Refused(Answer.error(status, error, reason));
  }
}
