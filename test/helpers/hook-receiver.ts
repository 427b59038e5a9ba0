// Node side (global setup): a local HTTP receiver for webhook deliveries. Every request is recorded
// under its path; `GET /__received/<path>` returns what arrived there, oldest first. A path containing
// `/status/<code>` answers with that status.
import http from "node:http";
import type { AddressInfo } from "node:net";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the local webhook receiver below. */
    hookReceiver: string;
  }
}

export type Received = { method: string; path: string; headers: Record<string, string>; body: string };

export async function startHookReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const seen = new Map<string, Received[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      if (req.method === "GET" && path.startsWith("/__received/")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(seen.get(path.slice("/__received".length)) ?? []));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
      const list = seen.get(path) ?? [];
      list.push({ method: req.method ?? "", path, headers, body: Buffer.concat(chunks).toString("utf8") });
      seen.set(path, list);
      const status = /\/status\/(\d{3})/.exec(path);
      res.writeHead(status ? Number(status[1]) : 200, { "Content-Type": "text/plain" });
      res.end(status ? `answered ${status[1]}` : "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
