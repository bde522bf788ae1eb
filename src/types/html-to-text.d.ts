// The part of html-to-text's API this project uses (the package ships no types).
declare module 'html-to-text' {
  export function convert(html: string, options?: { wordwrap?: number | false | null }): string;
}
