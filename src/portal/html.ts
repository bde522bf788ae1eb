// The portal's pages: escaping and one layout, readable at 1280 px and on a phone. No script at all
// and no inline style (the CSP allows neither): the one stylesheet is served at /portal/style.css.

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: string | number | undefined): string {
  if (value === undefined) return '';
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export const isoTime = (ms: number | undefined): string =>
  ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export interface Viewer {
  readonly email: string;
  readonly company: string;
  readonly csrf: string;
}

/** A whole page; `body` is markup already escaped. `viewer` adds the navigation and sign-out. */
export function layout(title: string, body: string, viewer?: Viewer): string {
  const nav =
    viewer === undefined
      ? ''
      : `<nav aria-label="portal"><a href="/portal/intakes">Intakes</a><a href="/portal/letters">Letters</a><a href="/portal/letters/new">Upload a letter</a><a href="/portal/self-tests">Self-tests</a><a href="/portal/addresses">Addresses</a><a href="/portal/invoices">Invoices</a><a href="/portal/security/totp">Two-factor</a><a href="/portal/sessions">Sessions</a>
<form method="post" action="/portal/logout" class="inline">${csrfField(viewer.csrf)}<button type="submit">Sign out</button></form>
<span class="who">${esc(viewer.email)} · ${esc(viewer.company)}</span></nav>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · letter portal</title>
<link rel="stylesheet" href="/portal/style.css">
</head>
<body>
<header><strong>Letter portal</strong>${nav}</header>
<main>
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export const csrfField = (token: string): string => `<input type="hidden" name="_csrf" value="${esc(token)}">`;

export const STYLE = `body { font: 16px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; }
header { background: #0b3d5c; color: #fff; padding: 0.6rem 1rem; display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; }
header nav { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; }
header a { color: #fff; }
header .who { font-size: 0.85rem; opacity: 0.85; }
main { padding: 1rem; max-width: 70rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; width: 100%; }
pre.report { white-space: pre-wrap; overflow-wrap: anywhere; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #f0f3f6; }
label { display: block; margin: 0.6rem 0 0.2rem; font-weight: 600; }
input[type=text], input[type=email], input[type=password], input[type=date], textarea { width: 100%; max-width: 28rem; padding: 0.4rem; font: inherit; box-sizing: border-box; }
button { margin-top: 0.8rem; padding: 0.4rem 1rem; font: inherit; }
form.inline { display: inline; }
form.inline button { margin: 0; }
.error { color: #a00; font-weight: 600; }
.note { background: #f6f6e8; padding: 0.5rem 0.8rem; border-left: 4px solid #c8b800; }
.codes { font-family: ui-monospace, monospace; font-size: 1.1rem; }
code, .uri { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
img.qr { width: 220px; height: 220px; image-rendering: pixelated; background: #fff; }
:focus-visible { outline: 3px solid #e08a00; }
`;
