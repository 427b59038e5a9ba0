import ipaddr from "ipaddr.js";

/**
 * The SSRF guard of outgoing hook and integration requests: `Gitlab::UrlBlocker` (lib/gitlab/url_blocker.rb)
 * with GitLab's messages. Hosts are parsed by the WHATWG URL parser first, so every numeric spelling of
 * an IPv4 address (`2130706433`, `0x7f.1`, `0177.0.0.1`) arrives here as dotted quad; IPv4-mapped IPv6
 * (`[::ffff:127.0.0.1]`) is unwrapped by ipaddr.js.
 *
 * Differs from GitLab: host names are not resolved (Workers have no DNS API), so a public name that
 * resolves to a private address is not caught here; `localhost`, `*.localhost` and `*.internal` are.
 */
export type GuardOptions = {
  /** `allow_local_requests_from_web_hooks_and_services` (or `…_from_system_hooks` for system hooks). */
  allowLocal: boolean;
  /** `outbound_local_requests_whitelist`: hosts, IPs or CIDR ranges let through even when local is refused. */
  allowlist?: readonly string[];
};

/** The reason a URL is refused (without the `URL is blocked: ` prefix), or null when it may be requested. */
export function blockedReason(raw: string, opts: GuardOptions): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return "Only allowed schemes are http, https";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only allowed schemes are http, https";
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (!host) return "Host cannot be resolved or invalid";
  if (opts.allowLocal || allowlisted(host, opts.allowlist ?? [])) return null;
  if (host === "localhost" || host.endsWith(".localhost")) return "Requests to localhost are not allowed";
  if (host.endsWith(".internal")) return "Requests to the local network are not allowed"; // metadata.google.internal
  if (!ipaddr.isValid(host)) return null;
  const range = ipaddr.process(host).range();
  switch (range) {
    case "loopback":
    case "unspecified":
      return "Requests to localhost are not allowed";
    case "linkLocal":
      return "Requests to the link local network are not allowed";
    case "carrierGradeNat":
      return "Requests to the shared address space are not allowed";
    case "private":
    case "uniqueLocal":
      return "Requests to the local network are not allowed";
    default:
      return null;
  }
}

/** True when the URL is acceptable as a hook's `url` (`validates :url, public_url: …`). */
export function validHookUrl(raw: string, opts: GuardOptions): boolean {
  return blockedReason(raw, opts) === null;
}

function allowlisted(host: string, list: readonly string[]): boolean {
  for (const entry of list) {
    const e = entry.trim().toLowerCase();
    if (!e) continue;
    if (e === host) return true;
    if (e.includes("/") && ipaddr.isValid(host)) {
      try {
        const [net, bits] = ipaddr.parseCIDR(e);
        const addr = ipaddr.process(host);
        if (addr.kind() === net.kind() && addr.match([net, bits] as [ipaddr.IPv4 | ipaddr.IPv6, number] as never)) return true;
      } catch {
        // an unparsable entry lets nothing through
      }
    }
  }
  return false;
}
