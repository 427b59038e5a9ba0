// The blob page's highlighter, a static asset (scripts/assets.mjs bundles it to /-/web/highlight.js):
// highlight.js core and the curated languages of functions/web/highlight.ts. It runs in the browser,
// outside the Worker's bundle and its 1 MiB budget; without JavaScript the page shows the same text
// unhighlighted. highlight.js escapes the text it is given: its output is `<span class="hljs-…">` only.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";


const LANGUAGES = { bash, c, cpp, css, diff, dockerfile, go, ini, java, javascript, json, markdown, python, ruby, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

for (const code of document.querySelectorAll("code[data-language]")) {
  const language = code.getAttribute("data-language");
  if (!hljs.getLanguage(language)) continue;
  code.innerHTML = hljs.highlight(code.textContent, { language, ignoreIllegals: true }).value;
  code.classList.add("hljs");
}
