import * as z from "zod";
import type { CiPipeline, GitCommitRow } from "../../db/schema";
import { PipelineBasic, pipelineBasic } from "./pipelines";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import type { NoteRow } from "./notes";
import { UserBasic, userBasic } from "./users";
import { parseTrailers } from "./commit_trailers";

/** What every commit entity needs besides the row: where the project lives. */
export type CommitContext = PresentContext & {
  projectId: number;
  projectPath: string;
  /** `trailers=true` on the list; elsewhere GitLab asks Gitaly for none and shows `{}`. */
  withTrailers?: boolean;
  /** CommitDetail's `stats` (GET `stats` and POST `stats`, both default true). */
  withStats?: boolean;
  /** CommitDetail: the commit's last pipeline (preloaded by the single GET), and whether the caller reads pipelines. */
  lastPipeline?: CiPipeline | null;
  readsPipelines?: boolean;
};

/**
 * A signature date as Gitlab::Git::Commit keeps it (`Time.strptime("<seconds> <±hhmm>", '%s %z')`):
 * the wall time in the signature's own offset, which Rails renders as `2012-09-20T09:06:12.000+03:00`
 * (`+00:00` for `+0000`, never `Z`).
 */
export function signatureDate(at: Date, tzMinutes: number): string {
  const local = new Date(at.getTime() + tzMinutes * 60_000).toISOString().slice(0, 23);
  const sign = tzMinutes < 0 ? "-" : "+";
  const abs = Math.abs(tzMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${local}${sign}${hh}:${mm}`;
}

/**
 * `Commit#full_title` (app/models/commit.rb): the whole first line, `No commit message` when the message
 * is blank. The API's `title` is this one, not the 100-character `Commit#title` (which revert messages use).
 */
export function fullTitle(message: string): string {
  if (message.trim() === "") return "No commit message";
  return message.split(/[\r\n]/, 1)[0];
}

/** API::Entities::CommitStats (lib/api/entities/commit_stats.rb). */
export const CommitStats = z.object({ additions: z.int(), deletions: z.int(), total: z.int() }).meta({ id: "CommitStats" });
export function commitStats(row: GitCommitRow): z.output<typeof CommitStats> {
  return {
    additions: row.additions,
    deletions: row.deletions,
    total: row.additions + row.deletions,
  };
}

/** API::Entities::Commit (lib/api/entities/commit.rb). */
export const Commit = z
  .object({
    id: z.string(),
    short_id: z.string(),
    created_at: z.string(),
    parent_ids: z.array(z.string()),
    title: z.string(),
    message: z.string(),
    author_name: z.string(),
    author_email: z.string(),
    authored_date: z.string(),
    committer_name: z.string(),
    committer_email: z.string(),
    committed_date: z.string(),
    trailers: z.record(z.string(), z.string()),
    web_url: z.string(),
  })
  .meta({ id: "Commit" });
export function commit(row: GitCommitRow, ctx: CommitContext): z.output<typeof Commit> {
  const committedDate = signatureDate(row.committedAt, row.committerTz);
  return {
    id: row.oid,
    // Commit.truncate_sha: `sha[0..MIN_SHA_LENGTH]`, 8 characters.
    short_id: row.oid.slice(0, 8),
    created_at: committedDate,
    parent_ids: row.parents,
    title: fullTitle(row.message),
    message: row.message,
    author_name: row.authorName,
    author_email: row.authorEmail,
    authored_date: signatureDate(row.authoredAt, row.authorTz),
    committer_name: row.committerName,
    committer_email: row.committerEmail,
    committed_date: committedDate,
    trailers: ctx.withTrailers ? parseTrailers(row.message) : {},
    web_url: webUrl(ctx, `${ctx.projectPath}/-/commit/${row.oid}`),
  };
}

/** API::Entities::CommitWithStats (`with_stats=true` on the list). */
export const CommitWithStats = Commit.extend({ stats: CommitStats }).meta({ id: "CommitWithStats" });
export function commitWithStats(row: GitCommitRow, ctx: CommitContext): z.output<typeof CommitWithStats> {
  return { ...commit(row, ctx), stats: commitStats(row) };
}

/**
 * API::Entities::CommitDetail (lib/api/entities/commit_detail.rb): `stats` when asked, `status` (the
 * last pipeline's status) and `last_pipeline` (PipelineBasic, for callers who may `read_pipeline`).
 * A commit just created (POST) has no pipeline yet: both null.
 */
export const CommitDetail = Commit.extend({
  stats: CommitStats.optional(),
  status: z.string().nullable(),
  project_id: z.int(),
  last_pipeline: PipelineBasic.nullable(),
}).meta({ id: "CommitDetail" });
export function commitDetail(row: GitCommitRow, ctx: CommitContext): z.output<typeof CommitDetail> {
  const last = ctx.lastPipeline ?? null;
  return {
    ...commit(row, ctx),
    ...(ctx.withStats ? { stats: commitStats(row) } : {}),
    status: last?.status ?? null,
    project_id: ctx.projectId,
    last_pipeline: last && ctx.readsPipelines ? pipelineBasic(last, ctx) : null,
  };
}

/** API::Entities::BasicRef (lib/api/entities/basic_ref.rb). */
export const BasicRef = z.object({ type: z.enum(["branch", "tag"]), name: z.string() }).meta({ id: "BasicRef" });
export function basicRef(ref: { type: "branch" | "tag"; name: string }): z.output<typeof BasicRef> {
  return { type: ref.type, name: ref.name };
}

/** A commit note with the diff line its line code names, when the commit's diff still has it. */
export type CommitNoteRow = NoteRow & { diffLine: { path: string; line: number; type: "new" | "old" | null } | null };

/**
 * API::Entities::CommitNote (lib/api/entities/commit_note.rb): `path`, `line` and `line_type` of a
 * diff note (LegacyDiffNote) come from the commit's diff line its line code names.
 */
export const CommitNote = z
  .object({
    note: z.string(),
    path: z.string().nullable(),
    line: z.int().nullable(),
    line_type: z.enum(["new", "old"]).nullable(),
    author: UserBasic.nullable(),
    created_at: z.string().nullable(),
  })
  .meta({ id: "CommitNote" });
export function commitNote(row: CommitNoteRow, ctx: PresentContext): z.output<typeof CommitNote> {
  const diffLine = row.type === "LegacyDiffNote" ? row.diffLine : null;
  return {
    note: row.note,
    path: diffLine?.path ?? null,
    line: diffLine?.line ?? null,
    line_type: diffLine?.type ?? null,
    author: row.author ? userBasic(row.author, ctx) : null,
    created_at: isoTime(row.createdAt),
  };
}

/** API::Entities::CommitSequence (GitLab 16.9). */
export const CommitSequence = z.object({ count: z.int() }).meta({ id: "CommitSequence" });
export function commitSequence(sequence: { count: number }): z.output<typeof CommitSequence> {
  return { count: sequence.count };
}

/** `present dry_run: :success` of cherry_pick and revert with `dry_run=true`. */
export const dryRunSuccess = { dry_run: "success" } as const;

/** The failure body of cherry_pick and revert: `result.slice(:message, :error_code)`, plus `dry_run`. */
export function pickFailure(message: string, errorCode: string | null, dryRun: boolean) {
  return {
    message,
    ...(errorCode ? { error_code: errorCode } : {}),
    ...(dryRun ? { dry_run: "error" } : {}),
  };
}

/**
 * Entities::CommitSignature (GitLab 15.4): the signature type, GpgCommitSignature's fields for PGP
 * (X509Signature's for X.509), and `commit_source`. Differs from GitLab: signatures are not checked
 * cryptographically, so a PGP signature whose issuer is a key on the instance answers `unverified`
 * (GitLab: `verified`, `other_user`, …) and the key's user name and email are null (GitLab reads them
 * from the key's user ids); one whose issuer no key matches answers `unknown_key`, as GitLab does. An
 * X.509 signature has no certificate to show (`x509_certificate` null).
 */
export const CommitSignature = z
  .union([
    z.object({
      signature_type: z.literal("PGP"),
      verification_status: z.string(),
      gpg_key_id: z.int().nullable(),
      gpg_key_primary_keyid: z.string().nullable(),
      gpg_key_user_name: z.string().nullable(),
      gpg_key_user_email: z.string().nullable(),
      gpg_key_subkey_id: z.int().nullable(),
      commit_source: z.string(),
    }),
    z.object({
      signature_type: z.literal("X509"),
      verification_status: z.string(),
      x509_certificate: z.record(z.string(), z.unknown()).nullable(),
      commit_source: z.string(),
    }),
  ])
  .meta({ id: "CommitSignature" });
export function commitSignatureEntity(sig: {
  type: "PGP" | "X509";
  keyid: string | null;
  key: { id: number; primaryKeyid: string } | null;
}): z.output<typeof CommitSignature> {
  if (sig.type === "PGP") {
    return {
      signature_type: "PGP",
      verification_status: sig.key ? "unverified" : "unknown_key",
      gpg_key_id: sig.key?.id ?? null,
      gpg_key_primary_keyid: sig.key?.primaryKeyid ?? sig.keyid,
      gpg_key_user_name: null,
      gpg_key_user_email: null,
      gpg_key_subkey_id: null,
      commit_source: "gitaly",
    };
  }
  return { signature_type: "X509", verification_status: "unverified", x509_certificate: null, commit_source: "gitaly" };
}
