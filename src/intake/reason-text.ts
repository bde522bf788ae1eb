// An intake's reason code and its sentence as one line. Some sentences already begin with their
// code (a session rule's reply text is reused as the worker's reason): the code is said once.

export function codeAndReason(code: string | undefined, reason: string | undefined): string {
  if (code === undefined) return reason ?? '';
  if (reason === undefined || reason === '' || reason === code) return code;
  return reason.startsWith(`${code}:`) ? reason : `${code}: ${reason}`;
}
