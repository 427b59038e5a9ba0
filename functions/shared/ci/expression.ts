/**
 * `rules:if` and `only:variables` expressions (lib/gitlab/ci/pipeline/expression/): `$VAR`, string
 * literals, `null`, `/regex/flags`, `==`, `!=`, `=~`, `!~`, `&&` (binds tighter), `||`, parentheses.
 * An undefined variable is null; a bare variable is true when defined and non-empty.
 * Differs from GitLab: patterns are JavaScript RegExps (GitLab uses RE2); look-around is refused.
 */
export class ExpressionError extends Error {}

type Token =
  | { t: "var"; name: string }
  | { t: "str"; value: string }
  | { t: "null" }
  | { t: "re"; source: string; flags: string }
  | { t: "op"; op: "==" | "!=" | "=~" | "!~" | "&&" | "||" }
  | { t: "(" }
  | { t: ")" };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === "(" || ch === ")") {
      out.push({ t: ch });
      i++;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === "==" || two === "!=" || two === "=~" || two === "!~" || two === "&&" || two === "||") {
      out.push({ t: "op", op: two });
      i += 2;
      continue;
    }
    if (ch === "$") {
      const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(text.slice(i));
      if (!m) throw new ExpressionError(`invalid expression syntax`);
      out.push({ t: "var", name: m[1] ?? m[2] });
      i += m[0].length;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) throw new ExpressionError("invalid expression syntax");
      out.push({ t: "str", value: text.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (ch === "/") {
      let j = i + 1;
      while (j < text.length && text[j] !== "/") j += text[j] === "\\" ? 2 : 1;
      if (j >= text.length) throw new ExpressionError("invalid expression syntax");
      const flags = /^[a-z]*/.exec(text.slice(j + 1))![0];
      out.push({ t: "re", source: text.slice(i + 1, j), flags });
      i = j + 1 + flags.length;
      continue;
    }
    if (text.startsWith("null", i)) {
      out.push({ t: "null" });
      i += 4;
      continue;
    }
    throw new ExpressionError("invalid expression syntax");
  }
  return out;
}

export function compilePattern(source: string, flags: string): RegExp {
  if (/\(\?<?[=!]/.test(source)) throw new ExpressionError("invalid expression syntax");
  try {
    return new RegExp(source, flags.replace(/[^imsu]/g, ""));
  } catch {
    throw new ExpressionError("invalid expression syntax");
  }
}

type Value = string | null | RegExp;
type Vars = Record<string, string | undefined>;

/** Evaluates `text` against `vars`. Throws ExpressionError for bad syntax. */
export function evaluate(text: string, vars: Vars): boolean {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];

  const operand = (): { value: Value; bare: boolean } => {
    const tok = tokens[pos++];
    if (!tok) throw new ExpressionError("invalid expression syntax");
    if (tok.t === "var") return { value: vars[tok.name] ?? null, bare: true };
    if (tok.t === "str") return { value: tok.value, bare: false };
    if (tok.t === "null") return { value: null, bare: false };
    if (tok.t === "re") return { value: compilePattern(tok.source, tok.flags), bare: false };
    throw new ExpressionError("invalid expression syntax");
  };

  const truthy = (v: Value) => (v instanceof RegExp ? true : v !== null && v !== "");

  const asPattern = (v: Value): RegExp | null => {
    if (v instanceof RegExp) return v;
    if (typeof v === "string") {
      const m = /^\/(.*)\/([a-z]*)$/s.exec(v);
      if (m) return compilePattern(m[1], m[2]);
    }
    return null;
  };

  const comparison = (): boolean => {
    if (peek()?.t === "(") {
      pos++;
      const inner = or();
      if (tokens[pos++]?.t !== ")") throw new ExpressionError("invalid expression syntax");
      return inner;
    }
    const left = operand();
    const next = peek();
    if (next?.t === "op" && (next.op === "==" || next.op === "!=" || next.op === "=~" || next.op === "!~")) {
      pos++;
      const right = operand();
      if (next.op === "==" || next.op === "!=") {
        const l = left.value instanceof RegExp ? String(left.value) : left.value;
        const r = right.value instanceof RegExp ? String(right.value) : right.value;
        return next.op === "==" ? l === r : l !== r;
      }
      const pattern = asPattern(right.value);
      if (!pattern) return false;
      const subject = left.value === null ? null : String(left.value);
      const matched = subject !== null && pattern.test(subject);
      return next.op === "=~" ? matched : !matched;
    }
    return truthy(left.value);
  };

  const and = (): boolean => {
    let value = comparison();
    while (peek()?.t === "op" && (peek() as { op: string }).op === "&&") {
      pos++;
      const right = comparison();
      value = value && right;
    }
    return value;
  };

  const or = (): boolean => {
    let value = and();
    while (peek()?.t === "op" && (peek() as { op: string }).op === "||") {
      pos++;
      const right = and();
      value = value || right;
    }
    return value;
  };

  const result = or();
  if (pos !== tokens.length) throw new ExpressionError("invalid expression syntax");
  return result;
}

/** Syntax check only (config validation). */
export function isValidExpression(text: string): boolean {
  try {
    evaluate(text, {});
    return true;
  } catch {
    return false;
  }
}
