import * as z from "zod";

/** API::Entities::Markdown (lib/api/entities/markdown.rb): the rendered HTML. */
export const Markdown = z.object({ html: z.string() }).meta({ id: "Markdown" });
export function markdown(html: string): z.output<typeof Markdown> {
  return { html };
}
