import { gunzipSync } from "fflate";
import { XMLParser } from "fast-xml-parser";

/**
 * JUnit reports (docs/ci.md, "JUnit reports"; lib/gitlab/ci/parsers/test/junit.rb, lib/gitlab/ci/reports/test_suite.rb).
 */
type Status = "error" | "failed" | "success" | "skipped";
export type TestCase = {
  status: Status;
  name: string;
  classname: string;
  file: string | null;
  execution_time: number;
  system_output: string | null;
  stack_trace: null;
  recent_failures: null;
};
export type Suite = {
  name: string;
  total_time: number;
  total_count: number;
  success_count: number;
  failed_count: number;
  skipped_count: number;
  error_count: number;
  suite_error: string | null;
  test_cases: TestCase[];
};

/** Every gzip member of a concatenation, decompressed and joined as separate documents. */
export function gunzipMembers(bytes: Uint8Array): string[] {
  const out: string[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0x1f || bytes[offset + 1] !== 0x8b) break;
    // Find the end of this member: try the next gzip header positions until one decompresses.
    let end = bytes.length;
    let text: string | null = null;
    for (let i = offset + 18; i <= bytes.length; i++) {
      if (i < bytes.length && !(bytes[i] === 0x1f && bytes[i + 1] === 0x8b && bytes[i + 2] === 0x08)) continue;
      try {
        text = new TextDecoder().decode(gunzipSync(bytes.subarray(offset, i)));
        end = i;
        break;
      } catch {
        continue;
      }
    }
    if (text === null) throw new Error("invalid gzip data");
    out.push(text);
    offset = end;
  }
  return out;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", textNodeName: "#text", isArray: (name) => ["testsuite", "testcase"].includes(name) });

const text = (node: unknown): string => {
  if (node === undefined || node === null) return "";
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(text).join("");
  const n = node as Record<string, unknown>;
  return n["#text"] === undefined ? "" : String(n["#text"]);
};

function caseOf(node: Record<string, unknown>): TestCase {
  const attr = (k: string) => (node[`@_${k}`] === undefined ? null : String(node[`@_${k}`]));
  let status: Status = "success";
  let output: string | null = null;
  const messageOf = (el: unknown) => {
    const t = text(el).trim();
    if (t) return t;
    return el && typeof el === "object" && (el as Record<string, unknown>)["@_message"] !== undefined ? String((el as Record<string, unknown>)["@_message"]) : "";
  };
  if (node.failure !== undefined) {
    status = "failed";
    output = messageOf(node.failure);
  } else if (node.error !== undefined) {
    status = "error";
    output = messageOf(node.error);
  } else if (node.skipped !== undefined) {
    status = "skipped";
    output = text(node.skipped).trim() || null;
  }
  if (status === "failed" || status === "error") {
    const parts = [output ?? ""];
    if (node["system-out"] !== undefined) parts.push(`System Out:\n\n${text(node["system-out"])}`);
    if (node["system-err"] !== undefined) parts.push(`System Err:\n\n${text(node["system-err"])}`);
    output = parts.filter((p, i) => i > 0 || p !== "").join("\n\n");
  }
  const time = Number(attr("time") ?? 0);
  return {
    status,
    name: attr("name") ?? "",
    classname: attr("classname") ?? "",
    file: attr("file"),
    execution_time: Number.isFinite(time) ? time : 0,
    system_output: output,
    stack_trace: null,
    recent_failures: null,
  };
}

function collectCases(node: Record<string, unknown>, into: TestCase[]) {
  for (const c of (node.testcase as Record<string, unknown>[] | undefined) ?? []) into.push(caseOf(c));
  for (const s of (node.testsuite as Record<string, unknown>[] | undefined) ?? []) collectCases(s, into);
}

export function parseJunit(xml: string): TestCase[] {
  const doc = parser.parse(xml, true) as Record<string, unknown>;
  const cases: TestCase[] = [];
  if (doc.testsuites && typeof doc.testsuites === "object") collectCases(doc.testsuites as Record<string, unknown>, cases);
  else if (Array.isArray(doc.testsuite)) for (const s of doc.testsuite as Record<string, unknown>[]) collectCases(s, cases);
  else throw new Error("JUnit XML parsing failed: the root is neither testsuites nor testsuite");
  return cases;
}

const ORDER: Status[] = ["error", "failed", "success", "skipped"];

async function caseKey(suite: string, c: TestCase): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${suite}_${c.classname}_${c.name}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** One suite per job name, built from that job's report files. */
export async function buildSuite(name: string, files: Uint8Array[]): Promise<Suite> {
  const buckets = new Map<Status, Map<string, TestCase>>(ORDER.map((s) => [s, new Map()]));
  let totalTime = 0;
  try {
    for (const file of files) {
      for (const xml of gunzipMembers(file)) {
        for (const c of parseJunit(xml)) {
          totalTime += c.execution_time;
          const key = await caseKey(name, c);
          const bucket = buckets.get(c.status)!;
          if (!bucket.has(key)) bucket.set(key, c);
        }
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^JUnit XML parsing failed: /, "") : String(error);
    return { name, total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, suite_error: `JUnit XML parsing failed: ${message}`, test_cases: [] };
  }
  const cases = ORDER.flatMap((s) => [...buckets.get(s)!.values()].sort((a, b) => b.execution_time - a.execution_time));
  const count = (s: Status) => buckets.get(s)!.size;
  return {
    name,
    total_time: round(totalTime),
    total_count: count("success") + count("failed") + count("skipped") + count("error"),
    success_count: count("success"),
    failed_count: count("failed"),
    skipped_count: count("skipped"),
    error_count: count("error"),
    suite_error: null,
    test_cases: cases,
  };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The pipeline's report: suites in job order, totals summed. */
export function testReport(suites: Suite[]) {
  const sum = (k: keyof Pick<Suite, "total_time" | "total_count" | "success_count" | "failed_count" | "skipped_count" | "error_count">) =>
    suites.reduce((a, s) => a + s[k], 0);
  return {
    total_time: round(sum("total_time")),
    total_count: sum("total_count"),
    success_count: sum("success_count"),
    failed_count: sum("failed_count"),
    skipped_count: sum("skipped_count"),
    error_count: sum("error_count"),
    test_suites: suites,
  };
}
