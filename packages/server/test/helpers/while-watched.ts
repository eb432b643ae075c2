/**
 * Runs `during` with `target[name]` wrapped so `watch` sees the arguments of every call first; the
 * original is back afterwards whatever happens, because test files share worker processes
 * (`isolate: false`). For counting what a real server does with a global (`JSON.stringify`,
 * `Object.setPrototypeOf`) over real HTTP, never for timing it.
 */
export async function whileWatched<T extends object, K extends keyof T>(
  target: T,
  name: K,
  watch: (...args: never[]) => void,
  during: () => Promise<void>,
): Promise<void> {
  const original = target[name] as (...args: unknown[]) => unknown;
  target[name] = function (this: unknown, ...args: unknown[]) {
    (watch as (...args: unknown[]) => void)(...args);
    return original.apply(this, args);
  } as T[K];
  try {
    await during();
  } finally {
    target[name] = original as T[K];
  }
}
