import * as z from "zod";
import type { PresentContext } from "../kernel/present";

/** A code search result (Gitlab::Search::FoundBlob) with the project it was found in. */
export type BlobRow = { basename: string; data: string; path: string; id: string | null; ref: string; startline: number; projectId: number };

/**
 * API::Entities::Blob (lib/api/entities/blob.rb): `filename` repeats `path` (kept for older clients).
 * Its component is `SearchBlob`: `Blob` names the repository's blob (entities/repository.ts), another shape.
 */
export const SearchBlob = z
  .object({
    basename: z.string(),
    data: z.string(),
    path: z.string(),
    filename: z.string(),
    id: z.string().nullable(),
    ref: z.string(),
    startline: z.int(),
    project_id: z.int(),
  })
  .meta({ id: "SearchBlob" });
export function blob(row: BlobRow, _ctx?: PresentContext): z.output<typeof SearchBlob> {
  return {
    basename: row.basename,
    data: row.data,
    path: row.path,
    filename: row.path,
    id: row.id,
    ref: row.ref,
    startline: row.startline,
    project_id: row.projectId,
  };
}
