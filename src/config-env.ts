// The environment as the configuration reads it: variable names to values, unset ones
// undefined. The composition roots pass `process.env`; tests pass a plain object; the sender
// directory resolves each sender's secret variable from it.

export type Env = Readonly<Record<string, string | undefined>>;
