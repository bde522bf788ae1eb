// One header's value as text (Node joins repeated custom headers; set-cookie-like arrays are joined here).
export function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}
