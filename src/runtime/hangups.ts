// SIGHUP for a long-running role: caught from the first moment of the process, so that a hangup
// during start (a deploy tool, or `docker compose kill -s HUP` right after a restart) neither
// kills it (Node's default for SIGHUP) nor is lost. One arriving before the role's parts are up
// is held and handed over when they are: the reload it asked for happens then.

type Handler = () => void;

let installed = false;
let held = 0;
let handler: Handler | undefined;

function onHangup(): void {
  if (handler === undefined) held += 1;
  else handler();
}

/** Catches SIGHUP from now on, holding it until `whenStarted` names what it does. Idempotent. */
export function holdHangups(): void {
  if (installed) return;
  installed = true;
  process.on('SIGHUP', onHangup);
}

/** What SIGHUP does from now on. Returns how many arrived during start (the caller acts on them once). */
export function whenStarted(onSignal: Handler): number {
  holdHangups();
  handler = onSignal;
  const during = held;
  held = 0;
  return during;
}
