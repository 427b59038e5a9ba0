/**
 * Badge images (lib/gitlab/ci/badge/*, app/views/projects/badges/badge.svg.erb): a shields-like SVG
 * with a key (left) and a value (right).
 */
type Template = { keyText: string; keyWidth: number; valueText: string; valueWidth: number; valueColor: string };

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Gitlab::Ci::Badge::Template: `key_text` up to 64 characters, `key_width` 1 to 512, else the defaults. */
export function customKey(defaults: { text: string; width: number }, opts: { keyText?: string; keyWidth?: string }) {
  const text = opts.keyText && opts.keyText.length <= 64 ? opts.keyText : defaults.text;
  const n = opts.keyWidth !== undefined && /^\d+$/.test(opts.keyWidth) ? Number(opts.keyWidth) : NaN;
  return { keyText: text, keyWidth: n >= 1 && n <= 512 ? n : defaults.width };
}

/** GitLab's template draws each text twice: a shadow one pixel lower, then the text itself. */
const shadowedText = (x: number, text: string) => `<text x="${x}" y="15" fill="#010101" fill-opacity=".3">
        ${text}
      </text>
      <text x="${x}" y="14">
        ${text}
      </text>`;

export function renderBadge(t: Template): string {
  const width = t.keyWidth + t.valueWidth;
  const keyAnchor = t.keyWidth / 2;
  const valueAnchor = t.keyWidth + t.valueWidth / 2;
  const key = escape(t.keyText);
  const value = escape(t.valueText);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20">
  <linearGradient id="b" x2="0" y2="100%">
    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>

  <mask id="a">
    <rect width="${width}" height="20" rx="3" fill="#fff"/>
  </mask>

  <g mask="url(#a)">
    <path fill="#555" d="M0 0 h${t.keyWidth} v20 H0 z"/>
    <path fill="${t.valueColor}" d="M${t.keyWidth} 0 h${t.valueWidth} v20 H${t.keyWidth} z"/>
    <path fill="url(#b)" d="M0 0 h${width} v20 H0 z"/>
  </g>

  <g fill="#fff" text-anchor="middle">
    <g font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11">
      ${shadowedText(keyAnchor, key)}
      ${shadowedText(valueAnchor, value)}
    </g>
  </g>
</svg>
`;
}

/** Gitlab::Ci::Badge::Pipeline::Template */
const PIPELINE_COLORS: Record<string, string> = {
  success: "#4c1",
  failed: "#e05d44",
  running: "#dfb317",
  pending: "#dfb317",
  preparing: "#a7a7a7",
  canceled: "#9f9f9f",
  skipped: "#9f9f9f",
  unknown: "#9f9f9f",
};

export function pipelineBadge(status: string | null, opts: { keyText?: string; keyWidth?: string }): string {
  const s = status ?? "unknown";
  return renderBadge({
    ...customKey({ text: "pipeline", width: 62 }, opts),
    valueText: s === "success" ? "passed" : s,
    valueWidth: 54,
    valueColor: PIPELINE_COLORS[s] ?? PIPELINE_COLORS.unknown,
  });
}

/** Gitlab::Ci::Badge::Coverage::Template */
export function coverageBadge(coverage: number | null, opts: { keyText?: string; keyWidth?: string }): string {
  const color =
    coverage === null ? "#9f9f9f" : coverage >= 100 ? "#4c1" : coverage >= 95 ? "#a3c51c" : coverage >= 75 ? "#dfb317" : coverage >= 0 ? "#e05d44" : "#9f9f9f";
  return renderBadge({
    ...customKey({ text: "coverage", width: 62 }, opts),
    valueText: coverage === null ? "unknown" : `${coverage.toFixed(2)}%`,
    valueWidth: 54,
    valueColor: color,
  });
}
