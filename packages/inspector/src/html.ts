// HTML built from tagged templates: every interpolated value is escaped unless it is already Html
// (built the same way), so memory content or model output can never inject markup.

const MARK = Symbol('html');

/** Markup that is safe to send: built by {@link html} or {@link raw}. */
export interface Html {
  readonly [MARK]: true;
  readonly text: string;
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an element body or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function isHtml(value: unknown): value is Html {
  return typeof value === 'object' && value !== null && MARK in value;
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (isHtml(part)) return part.text;
  if (Array.isArray(part)) return part.map((p: Part) => render(p)).join('');
  return escapeHtml(String(part));
}

/** Markup from a template; interpolations are escaped (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return { [MARK]: true, text };
}

/** Trusted markup (constant strings of this package only). */
export function raw(text: string): Html {
  return { [MARK]: true, text };
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafafa}
header{background:#1f2d3d;color:#fff;padding:.6rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header a{color:#dfe8f2;text-decoration:none}header a:hover,header a:focus{text-decoration:underline}
header strong{margin-right:1rem}header .muted{color:#c9d4df}main{padding:1rem;max-width:72rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #d8dde3;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eef1f4}code,pre{font:13px ui-monospace,monospace}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #d8dde3;padding:.5rem;max-height:20rem;overflow:auto}
.tag{display:inline-block;padding:0 .4rem;border-radius:.6rem;background:#e4ebf3;font-size:12px}
.muted{color:#5b6570}.error{color:#a4161a}.ok{color:#1b6e20}
form.inline{display:inline}input,button,select{font:inherit}button{cursor:pointer}
label{margin-right:.5rem}nav.pages a{margin-right:1rem}
`;

/** A whole page: the navigation, the agent in scope, and whether writes are allowed. */
export function page(input: { title: string; agentId: string; canWrite: boolean; body: Html }): string {
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · memory inspector</title><style>${raw(STYLE)}</style></head>
<body><header><strong>memory inspector</strong>
<nav aria-label="sections"><a href="/">Search</a> · <a href="/entities">Graph</a> · <a href="/passes">Dreaming passes</a> · <a href="/proposals">Proposals</a> · <a href="/map">Embedding map</a> · <a href="/health">Queue health</a></nav>
<span class="muted">agent <code>${input.agentId}</code> · ${input.canWrite ? 'write access' : 'read-only'}</span></header>
<main><h1>${input.title}</h1>${input.body}</main></body></html>`.text
  }`;
}

/** A timestamp (epoch ms) as ISO text, or a dash. */
export function time(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A number with at most `digits` decimals, or a dash. */
export function num(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined ? '—' : String(Math.round(value * 10 ** digits) / 10 ** digits);
}
