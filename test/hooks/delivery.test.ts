import { describe, expect, inject, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world } from "../helpers/world";
import type {} from "./receiver";

// Deliveries reach the local receiver of test/hooks/receiver.ts (started by the global setup).
const RECEIVER = inject("hookReceiver");

type Received = { method: string; path: string; headers: Record<string, string>; body: string };

async function received(path: string): Promise<Received[]> {
  return (await (await fetch(`${RECEIVER}/__received${path}`)).json()) as Received[];
}

describe("POST /hooks/:hook_id (test a system hook)", () => {
  it("delivers GitLab's sample to the receiver (system hooks may reach local addresses by default) and answers 201 with it", async () => {
    const w = await world();
    const path = `/${unique("system")}`;
    const { id } = (await (await w.root.post(`/hooks`, { json: { url: `${RECEIVER}${path}`, token: "sys-token" } })).json()) as { id: number };
    const res = await w.root.post(`/hooks/${id}`);
    const sample = {
      event_name: "project_create",
      name: "Ruby",
      path: "ruby",
      project_id: 1,
      owner_name: "Someone",
      owner_email: "example@gitlabhq.com",
    };
    expect(await statusAndBody(res)).toEqual([201, sample]);
    const [delivery, ...more] = await received(path);
    expect(more).toEqual([]);
    expect(delivery.method).toBe("POST");
    expect(JSON.parse(delivery.body)).toEqual(sample);
    expect(delivery.headers).toMatchObject({
      "content-type": "application/json",
      "x-gitlab-event": "System Hook",
      "x-gitlab-token": "sys-token",
      "user-agent": "GitLab/15.4.0",
    });
    expect(delivery.headers["x-gitlab-event-uuid"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers 404 for an unknown hook and 403 for non-administrators", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.root.post(`/hooks/2147483647`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(user).post(`/hooks/1`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
