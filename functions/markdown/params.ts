import * as z from "zod";
import { p } from "../kernel/params";

/** POST /markdown (lib/api/markdown.rb). */
export const RenderMarkdown = z.object({
  text: p.string(),
  gfm: p.bool().optional(),
  project: p.string().optional(),
});
