// Test side: what the local webhook receiver (test/helpers/hook-receiver.ts, started by the global
// setup) recorded, and the instance setting that lets hooks reach it. The receiver listens on 127.0.0.1,
// so deliveries to it need `allow_local_requests_from_web_hooks_and_services`, which is off by default
// (and a test of remote mirrors relies on that default): a file that turns it on turns it off in its
// `afterAll`. The suite runs its files one at a time, so no other file sees the setting changed.
import { expect, inject } from "vitest";
import type { Received } from "./hook-receiver";
import type { World } from "./world";

export type { Received };

/** Base URL of the receiver. */
export const RECEIVER = inject("hookReceiver");

/** What arrived at `path`, oldest first. */
export async function received(path: string): Promise<Received[]> {
  return (await (await fetch(`${RECEIVER}/__received${path}`)).json()) as Received[];
}

/** Polls the receiver until `count` deliveries arrived at `path` (the queue delivers asynchronously). */
export async function waitFor(path: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = await received(path);
    if (list.length >= count || Date.now() > until) return list;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Turns `allow_local_requests_from_web_hooks_and_services` on or off (as the administrator). */
export async function allowLocalHooks(w: World, on: boolean): Promise<void> {
  const res = await w.root.put(`/application/settings`, { json: { allow_local_requests_from_web_hooks_and_services: on } });
  expect(res.status).toBe(200);
}
