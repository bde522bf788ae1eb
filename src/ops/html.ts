// The smallest HTML toolkit the admin pages need: escaping and one page layout. Everything that
// comes from a message (subjects, addresses, reasons) is attacker-controlled: escape it all.

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string | number | undefined): string {
  if (value === undefined) return '';
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A complete page; `body` must already be escaped markup. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100ch; background: #f7f7f7; padding: 0.5rem; }
th { background: #f3f3f3; }
nav a { margin-right: 1rem; }
form { margin: 0; }
.counts { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; }
.num { text-align: right; }
form.search { margin: 0 0 1rem; }
.pager a, .pager span { margin-right: 1rem; }
</style>
</head>
<body>
<nav><a href="/admin/intakes">latest</a><a href="/admin/intakes?state=failed">failed</a><a href="/admin/intakes?state=rejected">rejected</a><a href="/admin/intakes?state=submitted">submitted</a><a href="/admin/intakes?state=received,queued,processing">in progress</a><a href="/admin/intakes/refused">refused in session</a><a href="/admin/intakes/senders">senders</a><a href="/admin/self-tests">self-tests</a><a href="/admin/queues">queue dashboard</a></nav>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

export function isoTime(ms: number | undefined): string {
  return ms === undefined ? '' : new Date(ms).toISOString();
}
