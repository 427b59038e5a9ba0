import type { Ctx } from "./env";

/**
 * A response body pulled from an async generator (git packs, archives): nothing is buffered beyond
 * the chunk being sent, the Worker stays alive until the stream ends (`waitUntil`), and a client
 * that hangs up runs the generator's `finally` (its own database connection closes there).
 */
export function streamOf(c: Ctx, chunks: AsyncGenerator<Uint8Array>, what: string): ReadableStream<Uint8Array> {
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: end } = await chunks.next();
        if (end) {
          controller.close();
          finished();
        } else controller.enqueue(value);
      } catch (error) {
        console.error(`[${c.var.requestId}] ${what} stream:`, error);
        controller.error(error);
        finished();
      }
    },
    async cancel() {
      await chunks.return(undefined);
      finished();
    },
  });
  try {
    c.executionCtx.waitUntil(done);
  } catch {
    // no execution context (unit tests calling app.fetch directly)
  }
  return body;
}
