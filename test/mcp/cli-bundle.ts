import { useBuiltCli } from '../cli/helpers.js';

/** The CLI as users run it, bundled once per test file (see test/cli/helpers.ts). */
export function useCliBundle(): { path: () => string } {
  const cli = useBuiltCli();
  return { path: cli.path };
}
