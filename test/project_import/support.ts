import { gzipSync, strToU8 } from "fflate";
import { TAR_END, tarEntryHeader, tarPadding } from "../../functions/shared/git/pure/tar";
import type { world, TestUser } from "../helpers/world";

type World = Awaited<ReturnType<typeof world>>;
type Json = Record<string, any>;

export function multipart(file: Uint8Array, fields: Record<string, string>, filename = "export.tar.gz") {
  const form = new FormData();
  form.append("file", new File([file], filename, { type: "application/gzip" }));
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return form;
}

/** Polls the status endpoint until the import leaves scheduled/started (the real queue delivers the message). */
export async function settledImport(w: World, user: TestUser, projectId: number): Promise<Json> {
  for (let i = 0; i < 150; i++) {
    const body = (await (await w.as(user).get(`/projects/${projectId}/import`)).json()) as Json;
    if (!["scheduled", "started"].includes(body.import_status as string)) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the import did not finish within 15 s");
}

/** A tar.gz of `files`, member names as GitLab's `tar -C dir -czf archive .` writes them (`./…`). */
export function targz(files: Record<string, Uint8Array | string>, prefix = "./"): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [path, content] of Object.entries(files)) {
    const body = typeof content === "string" ? strToU8(content) : content;
    parts.push(tarEntryHeader({ path: `${prefix}${path}`, kind: "file", size: body.length }, 1700000000), body, tarPadding(body.length));
  }
  parts.push(TAR_END);
  const tar = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    tar.set(p, at);
    at += p.length;
  }
  return gzipSync(tar);
}

