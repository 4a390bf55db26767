/**
 * feedback.submit: an external side effect. Sisyphus has no feedback service of its own: the user
 * names a destination in the settings (`options.feedbackUrl`), and the call posts the business
 * arguments there once, as JSON `{message, category?, contact?}`. Nothing else is sent: no request
 * ID, hash, token, note content or header of ours beyond the content type.
 *
 * Only a process that may reach other hosts sends it (the Node server passes a sender); the kernel
 * plugin has none, so there it is `feedback_unavailable`.
 */
import { ToolError } from "../errors.js";
import { externalAction, type ToolHandlers } from "../handler.js";
import { urlHost } from "../settings.js";

/** What leaves the machine: the call's business arguments, nothing more. */
export interface FeedbackPayload {
  readonly message: string;
  readonly category?: string;
  readonly contact?: string;
}

/** How a send ended: accepted (2xx), or provably never sent (`reason`). */
export type FeedbackDelivery =
  | { readonly sent: true; readonly status: number }
  | { readonly sent: false; readonly reason: string };

/**
 * Posts one feedback. Answers `sent: false` only when nothing left the process (no connection was
 * made); throws when the request may have reached the receiver without a 2xx answer, so the
 * coordinator reports an unknown outcome instead of retrying.
 */
export interface FeedbackSender {
  send(url: string, payload: FeedbackPayload): Promise<FeedbackDelivery>;
}

/** How long one feedback post may take before its outcome is unknown. */
export const FEEDBACK_TIMEOUT_MS = 10_000;

/** Node's error codes for a connection that was never made. */
const NEVER_CONNECTED = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"];

function connectCode(e: unknown): string | undefined {
  const cause = (e as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code;
  return typeof code === "string" && NEVER_CONNECTED.includes(code) ? code : undefined;
}

/**
 * The Node sender: one `fetch` POST, no redirect followed (a 3xx would send the text on to a host
 * the user did not name), not tied to the call's cancellation (the coordinator's barrier already
 * let it start), {@link FEEDBACK_TIMEOUT_MS} at most.
 */
export function fetchFeedbackSender(timeoutMs = FEEDBACK_TIMEOUT_MS): FeedbackSender {
  return {
    async send(url, payload) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(payload),
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        const code = connectCode(e);
        if (code !== undefined) return { sent: false, reason: code.toLowerCase() };
        throw e;
      }
      await res.body?.cancel();
      if (res.status < 200 || res.status > 299) {
        throw new Error(`the feedback receiver answered HTTP ${res.status}`);
      }
      return { sent: true, status: res.status };
    },
  };
}

/** The feedback tool's handlers. */
export const feedbackHandlers = {
  submit: externalAction({
    run: async (ctx, a) => {
      const url = ctx.feedbackUrl;
      if (url === null) {
        throw new ToolError(
          "feedback_unconfigured",
          "no feedback destination is set (settings options.feedbackUrl); nothing was sent",
        );
      }
      if (ctx.feedback === undefined) {
        throw new ToolError(
          "feedback_unavailable",
          "this Sisyphus authority (the kernel plugin) cannot reach other hosts; nothing was sent",
          { reason: "no_sender_here" },
        );
      }
      const payload: FeedbackPayload = {
        message: a.message,
        ...(a.category === undefined ? {} : { category: a.category }),
        ...(a.contact === undefined ? {} : { contact: a.contact }),
      };
      const delivery = await ctx.feedback.send(url, payload);
      if (!delivery.sent) {
        throw new ToolError(
          "feedback_unavailable",
          `the feedback destination could not be reached (${delivery.reason}); nothing was sent`,
          { reason: delivery.reason },
        );
      }
      return { sent: true, destination: urlHost(url)?.origin ?? url, status: delivery.status };
    },
  }),
} satisfies ToolHandlers<"feedback">;
