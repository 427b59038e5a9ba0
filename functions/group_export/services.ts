import type { Executor } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { EXPORT_VERSION } from "../entities/project_export";
import { groupExportTree } from "../entities/group_export";
import { R2ArchiveSink, TarGzWriter } from "../project_export/public";
import { endGroupTransferJob, leaseGroupTransferJob } from "../shared/transfer_jobs";
import * as q from "./queries";

const encoder = new TextEncoder();

export const groupArchiveKey = (groupId: number, jobId: number) => `exports/group-${groupId}/${jobId}.tar.gz`;

/**
 * The group archive (Groups::ImportExport::ExportService: VERSION and the ndjson tree) written into R2
 * at `key` as it is made. False when the group is gone.
 */
export async function writeGroupArchive(db: Executor, bucket: R2Bucket, groupId: number, key: string): Promise<boolean> {
  const data = await q.groupExportRelations(db, groupId);
  if (!data) return false;
  const sink = new R2ArchiveSink(bucket, key);
  const tar = new TarGzWriter(sink, Math.floor(Date.now() / 1000));
  try {
    await tar.file("VERSION", [encoder.encode(EXPORT_VERSION)]);
    for (const file of groupExportTree(data)) {
      const text = file.lines === null ? JSON.stringify(file.json) : file.lines.map((line) => JSON.stringify(line)).join("\n") + (file.lines.length ? "\n" : "");
      await tar.file(file.path, [encoder.encode(text)]);
    }
    await tar.close();
  } catch (error) {
    await sink.abort();
    throw error;
  }
  return true;
}

/**
 * Runs one group export job (the queue consumer's work): takes its lease (a redelivery of a finished or
 * held job does nothing), writes the archive and records the outcome.
 */
export async function runGroupExport(db: Executor, env: Bindings, jobId: number, leaseSeconds = 600): Promise<"done" | "skipped"> {
  const job = await leaseGroupTransferJob(db, jobId, "export", leaseSeconds);
  if (!job) return "skipped";
  const key = groupArchiveKey(job.groupId, job.id);
  if (!(await writeGroupArchive(db, env.BLOBS, job.groupId, key))) await endGroupTransferJob(db, job.id, { error: "The group no longer exists" });
  else await endGroupTransferJob(db, job.id, { r2Key: key });
  return "done";
}
