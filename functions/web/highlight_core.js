// highlight.js core and the curated languages of functions/web/highlight.ts. Plain JavaScript with its
// own declaration (highlight_core.d.ts): highlight.js' type definitions pull in the DOM library, which
// clashes with the Workers types the rest of functions/ is checked against.
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

/** The source as highlighted HTML (highlight.js escapes it); `language` must be one registered above. */
export function highlightAs(language, text) {
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
