import { connect } from "cloudflare:sockets";

/**
 * The part of the WebSocket interface the Neon driver uses (`binaryType`, `addEventListener` for open,
 * message, close and error, `send`, `close`), carried over a raw TCP socket from `connect()`.
 *
 * Why: locally the driver's only peer is our own pooling proxy (scripts/ws-proxy.mjs), and the WebSocket
 * around the Postgres byte stream costs every request an HTTP upgrade and a frame (with its mask) per
 * message, on both sides. With `PG_TCP_PROXY` set the driver is the same Neon driver, speaking the same
 * Postgres protocol to the same transaction pooler, only without the WebSocket layer. Production keeps
 * the driver's own WebSocket to Neon (no `PG_TCP_PROXY` there). Hand-written: no library adapts a
 * Workers socket to this interface, and it is 50 lines.
 */
export function tcpWebSocketConstructor(target: string) {
  const colon = target.lastIndexOf(":");
  const hostname = target.slice(0, colon);
  const port = Number(target.slice(colon + 1));

  type Listener = (event: { data?: ArrayBuffer | Uint8Array; error?: unknown }) => void;

  return class TcpWebSocket {
    binaryType = "arraybuffer";
    readyState = 0;
    private readonly listeners: Record<string, Listener[]> = { open: [], message: [], close: [], error: [] };
    private readonly socket = connect({ hostname, port });
    private readonly writer = this.socket.writable.getWriter();

    constructor(_url: string) {
      this.socket.opened.then(
        () => {
          this.readyState = 1;
          this.emit("open", {});
          void this.readLoop();
        },
        (error: unknown) => this.fail(error),
      );
    }

    addEventListener(type: string, listener: Listener) {
      this.listeners[type]?.push(listener);
    }

    /** Messages sent during the current turn, written together at its end (see `send`). */
    private pending: Uint8Array[] | null = null;

    /**
     * The driver sends each protocol message on its own (Parse, Bind, Describe, Execute, Sync: five per
     * statement), and each `writer.write` is a trip into the runtime's socket code with its own promise:
     * profiled, that was the largest share of the isolate's CPU on `GET /projects/:id` (about 15%). The
     * messages of one turn are joined and written once, at the end of the turn (a microtask, so nothing
     * waits: the driver's own coalescing uses a `setTimeout(0)`, which costs a timer per statement).
     */
    send(data: Uint8Array) {
      if (this.pending) {
        this.pending.push(data);
        return;
      }
      this.pending = [data];
      queueMicrotask(() => this.flush());
    }

    private flush() {
      const chunks = this.pending;
      this.pending = null;
      if (!chunks || this.readyState >= 2) return; // closed: `close` wrote what was pending
      let data = chunks[0];
      if (chunks.length > 1) {
        let length = 0;
        for (const chunk of chunks) length += chunk.byteLength;
        data = new Uint8Array(length);
        let offset = 0;
        for (const chunk of chunks) {
          data.set(chunk, offset);
          offset += chunk.byteLength;
        }
      }
      // Writes are queued by the stream in order; a failed one surfaces as an error event.
      this.writer.write(data).catch((error: unknown) => this.fail(error));
    }

    close() {
      if (this.readyState >= 2) return;
      this.flush(); // the driver's last messages (Terminate) go before the close
      this.readyState = 2;
      this.socket.close().catch(() => {});
    }

    private async readLoop() {
      const reader = this.socket.readable.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          this.emit("message", { data: value });
        }
      } catch (error) {
        this.emit("error", { error });
      }
      this.readyState = 3;
      this.emit("close", {});
    }

    private fail(error: unknown) {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.emit("error", { error });
      this.emit("close", {});
    }

    private emit(type: string, event: Parameters<Listener>[0]) {
      for (const listener of this.listeners[type] ?? []) listener(event);
    }
  };
}
