import * as z from "zod";

/** Grape's `created!`, `accepted!` and `status 200` bodies: `{"message": "201 Created"}`, `{"message": "202 Accepted"}`. */
export const StatusMessage = z.object({ message: z.string() }).meta({ id: "StatusMessage" });

/**
 * The bare JSON a state change answers where GitLab's endpoint returns the transition's result
 * (`POST /users/:id/block`: `true`, or `null`/`false` when there was nothing to do).
 */
export const TransitionResult = z.boolean().nullable().meta({ id: "TransitionResult" });
