/**
 * Alert payloads (lib/gitlab/alert_management/payload/{generic,prometheus}.rb): what an incoming
 * payload says, as the consumer needs it. Pure functions, no I/O.
 */

import { SEVERITIES } from "../entities/alert_management";

/** The index of `resolved` in STATUSES (the presenter owns the enum's names). */
export const RESOLVED = 2;

export type ParsedAlert = {
  title: string;
  description: string | null;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  severity: number;
  startedAt: Date;
  endedAt: Date | null;
  /** Prometheus `status: resolved`, or a generic payload with `end_time`. */
  resolving: boolean;
  environment: string | null;
  /** The raw value to hash (Gitlab::AlertManagement::Fingerprint.generate). */
  plainFingerprint: string;
  payload: Record<string, unknown>;
};

export type AttributeMapping = Record<string, { path: string[]; type?: string }>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (v === undefined || v === null || v === "" ? null : typeof v === "string" ? v : JSON.stringify(v));

function time(v: unknown): Date | null {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** `severity`: case-insensitive; `critical` when missing or unknown (Payload::Generic#severity_mapping). */
export function severityOf(value: unknown, map: Record<string, string> = {}): number {
  const key = String(value ?? "").toLowerCase();
  const name = map[key] ?? key;
  const i = SEVERITIES.indexOf(name as (typeof SEVERITIES)[number]);
  return i < 0 ? 0 : i;
}

/** Payload::Prometheus::SEVERITY_MAP: Alertmanager's usual label values. */
const PROMETHEUS_SEVERITY: Record<string, string> = {
  s1: "critical", s2: "high", s3: "medium", s4: "low", s5: "info",
  p1: "critical", p2: "high", p3: "medium", p4: "low", p5: "info",
  debug: "info", information: "info", notice: "info", warn: "low", warning: "low", minor: "low",
  error: "medium", major: "high", emergency: "critical", fatal: "critical", alert: "high", page: "high",
};

function dig(payload: unknown, path: string[]): unknown {
  let v: unknown = payload;
  for (const key of path) {
    if (!isObject(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** Stable JSON (sorted keys) of a value: the digest of a payload must not depend on key order. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

/** `Fingerprint.generate`: an array is flattened and joined, anything else stringified. */
function fingerprintSource(v: unknown): string {
  if (Array.isArray(v)) return v.flat(Infinity).map((x) => (typeof x === "string" ? x : stable(x))).join("");
  return typeof v === "string" ? v : stable(v);
}

/** Payload::Generic, with the integration's custom mapping (Premium `payload_attribute_mapping`) first. */
export function parseGeneric(payload: Json, mapping: AttributeMapping, receivedAt: Date): ParsedAlert {
  const get = (field: string) => (mapping[field] ? dig(payload, mapping[field].path) : payload[field]);
  const endedAt = time(get("end_time"));
  const hosts = get("hosts");
  const fingerprint = get("fingerprint");
  // Without a fingerprint, EE groups equal payloads: the digest of the payload without start_time,
  // end_time and hosts (EXCLUDED_PAYLOAD_FINGERPRINT_PARAMS). GitLab hashes Ruby's Hash#to_s; we hash
  // sorted-key JSON, so equal payloads group as in GitLab though the digest itself differs.
  let plain: string;
  if (fingerprint !== undefined && fingerprint !== null && fingerprint !== "") plain = fingerprintSource(fingerprint);
  else {
    const rest: Json = { ...payload };
    for (const key of ["start_time", "end_time", "hosts"]) delete rest[key];
    plain = stable(rest);
  }
  return {
    title: str(get("title")) ?? "New: Alert",
    description: str(get("description")),
    service: str(get("service")),
    monitoringTool: str(get("monitoring_tool")),
    hosts: (Array.isArray(hosts) ? hosts.flat(Infinity) : hosts === undefined || hosts === null ? [] : [hosts]).map((h) => String(h)),
    severity: severityOf(get("severity")),
    startedAt: time(get("start_time")) ?? receivedAt,
    endedAt,
    resolving: endedAt !== null,
    environment: str(get("gitlab_environment_name")) ?? str(get("svc_environment_name")),
    plainFingerprint: plain,
    payload,
  };
}

/** Alertmanager's webhook body: `{ version, status, alerts: [...] }`. */
export function isPrometheus(payload: Json): boolean {
  return Array.isArray(payload.alerts) && ("version" in payload || "groupKey" in payload || "receiver" in payload || payload.alerts.some((a) => isObject(a) && ("labels" in a || "annotations" in a)));
}

/** Alertmanager's zero time for "not ended". */
const ZERO_TIME = /^0001-01-01/;

/** Payload::Prometheus for one entry of `alerts[]` (the notify service takes at most 100 of them). */
export function parsePrometheus(alert: Json, receivedAt: Date): ParsedAlert {
  const annotations = isObject(alert.annotations) ? alert.annotations : {};
  const labels = isObject(alert.labels) ? alert.labels : {};
  const title = str(annotations.title) ?? str(annotations.summary) ?? str(labels.alertname) ?? "New: Alert";
  const startsRaw = typeof alert.startsAt === "string" ? alert.startsAt : "";
  const endsRaw = typeof alert.endsAt === "string" && !ZERO_TIME.test(alert.endsAt) ? alert.endsAt : null;
  let query = "";
  try {
    if (typeof alert.generatorURL === "string") query = new URL(alert.generatorURL).searchParams.get("g0.expr") ?? "";
  } catch {
    query = "";
  }
  const resolving = alert.status === "resolved";
  return {
    title,
    description: str(annotations.description),
    service: null,
    monitoringTool: "Prometheus",
    hosts: [],
    severity: severityOf(labels.severity, PROMETHEUS_SEVERITY),
    startedAt: time(startsRaw) ?? receivedAt,
    endedAt: resolving ? (time(endsRaw) ?? receivedAt) : null,
    resolving,
    environment: str(labels.gitlab_environment_name),
    // Payload::Prometheus#plain_gitlab_fingerprint: `[starts_at_raw, title, full_query].join('/')`.
    plainFingerprint: typeof alert.fingerprint === "string" && alert.fingerprint ? alert.fingerprint : [startsRaw, title, query].join("/"),
    payload: alert,
  };
}

/** Every alert a receipt carries: one for a generic payload, each of `alerts[]` (≤ 100) for Alertmanager. */
export function parsePayload(payload: unknown, mapping: AttributeMapping, receivedAt: Date): ParsedAlert[] {
  if (!isObject(payload)) return [];
  if (isPrometheus(payload)) return (payload.alerts as unknown[]).slice(0, 100).filter(isObject).map((a) => parsePrometheus(a, receivedAt));
  return [parseGeneric(payload, mapping, receivedAt)];
}

export async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Gitlab::Utils::DeepSize defaults: at most 1 MB of JSON and 100 levels of nesting. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const MAX_PAYLOAD_DEPTH = 100;

export function depthOf(v: unknown, limit = MAX_PAYLOAD_DEPTH + 1): number {
  if (typeof v !== "object" || v === null) return 0;
  if (limit <= 0) return 1;
  let max = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) max = Math.max(max, depthOf(x, limit - 1));
  return max + 1;
}

/** Constant-time comparison of two tokens (the receiver's authorization key). */
export function sameToken(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

export function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Mapping fields GitLab lets a custom mapping set (AlertManagement::AlertPayloadFieldEnum). */
export const MAPPABLE_FIELDS = ["title", "description", "start_time", "end_time", "service", "monitoring_tool", "hosts", "severity", "fingerprint", "gitlab_environment_name"];
