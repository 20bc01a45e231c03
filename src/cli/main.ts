#!/usr/bin/env node
import { createMemoryStore } from '../memory/memory-store.js';
import { demoClock, runDemo } from './demo.js';

const USAGE = `session-state-kit <command>

Commands:
  demo        run a scripted manager/child/person scenario on an in-memory store
  help        show this help
`;

export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const [command] = argv;
  switch (command) {
    case 'demo': {
      const clock = demoClock();
      const store = createMemoryStore({ now: clock.now });
      out('session-state-kit demo: one manager, one child, one person (in-memory store)');
      await runDemo(store, clock, out);
      await store.close();
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(USAGE);
      return 0;
    default:
      console.error(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
