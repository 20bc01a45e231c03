/**
 * Child of the upstream-scan bench: one scan of the transcript in a fresh process, so its peak
 * resident memory (getrusage maxRSS) shows what the scan itself needs. Prints JSON.
 */
import { scanWithCore } from '../cases/upstream-scan.js';

const path = process.argv[2];
if (!path) throw new Error('usage: upstream-scan-child <transcript> [fresh-reads]');
// `fresh-reads`: a new buffer per read, as the source adapter reads (see scanWithCore).
const freshReads = process.argv[3] === 'fresh-reads';
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const rssBefore = process.memoryUsage().rss;
const turns = scanWithCore(path, () => undefined, freshReads);
const maxRss = process.resourceUsage().maxRSS * 1024;
process.stdout.write(JSON.stringify({ rssBefore, maxRss, turns }));
