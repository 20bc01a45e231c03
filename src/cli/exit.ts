// `node dist/cli.js ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/**
 * Exit once stdout and stderr are flushed. Writes to a pipe are asynchronous: what a slow reader
 * has not taken yet waits in the process, and process.exit() would drop it (a long
 * `upstream scan --json | consumer` arrived cut, with exit 0). An empty write's callback runs
 * after every write queued before it.
 */
export function exitFlushed(code: number): void {
  process.exitCode = code;
  const flush = (stream: NodeJS.WriteStream, then: () => void) => (stream.writableLength === 0 ? then() : stream.write('', then));
  flush(process.stdout, () => flush(process.stderr, () => process.exit(code)));
}
